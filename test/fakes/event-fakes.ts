import { T0 } from '../mothers/journal-events';
import { FixedClock } from './fixed-clock';
import { InMemoryChainLogs } from './in-memory-chain-logs';
import { InMemoryEngineStore } from './in-memory-engine-store';
import { InMemoryEventCursors } from './in-memory-event-cursors';
import { InMemoryJournal } from './in-memory-journal';
import { RecordingLogger } from './recording-logger';

/** The fakes an event use-case test wires together: a chain, one storage (schedule, cursors, journal), a clock, a log. */
export class EventFakes {
  readonly clock = new FixedClock(T0);
  readonly chain = new InMemoryChainLogs();
  readonly engine = new InMemoryEngineStore();
  readonly cursors = new InMemoryEventCursors(this.engine);
  readonly journal = new InMemoryJournal({ schedule: this.engine });
  readonly logger = new RecordingLogger();
}
