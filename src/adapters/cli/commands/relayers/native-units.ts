import type { ChainflowConfig } from '../../../../application/config';
import { formatNative } from '../../../../domain/wei';

/** Digits of the native unit shown in relayer tables (gwei precision); `--json` has the exact wei. */
const DIGITS = 9;

/** Formats decimal wei strings in each network's native unit (ETH when the network is not configured). */
export class NativeUnits {
  private symbols = new Map<string, string>();

  load(config: ChainflowConfig): void {
    this.symbols = new Map([...config.networks.values()].map((n) => [n.name, n.nativeSymbol]));
  }

  format(wei: string | null, network: string): string | null {
    return wei === null ? null : formatNative(BigInt(wei), this.symbols.get(network) ?? 'ETH', DIGITS);
  }
}
