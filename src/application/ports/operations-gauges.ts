/** Runs parked now, per workflow and what they wait for. */
export interface WaitingCount {
  readonly workflow: string;
  readonly waitKind: string;
  readonly runs: number;
}

/** Live sends of a relayer neither settled nor left simulated. */
export interface InFlightCount {
  readonly relayer: string;
  readonly sends: number;
}

/** How far an event workflow's cursor is behind the head it last read. */
export interface EventLag {
  readonly workflow: string;
  readonly lagBlocks: number;
}

/**
 * Depths an operator alerts on, read from storage so that every process answers the same (grouped counts, never a
 * scan of items). Each list holds only the groups that exist now.
 */
export interface OperationsGauges {
  runsWaiting(): Promise<WaitingCount[]>;
  sendsInFlight(): Promise<InFlightCount[]>;
  /** Workflows whose state has both a cursor and a head (event triggers that polled at least once). */
  eventLag(): Promise<EventLag[]>;
}
export const OperationsGauges = Symbol('OperationsGauges');
