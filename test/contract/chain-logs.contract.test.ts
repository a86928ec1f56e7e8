import { Web3Abi } from '../../src/adapters/chain/web3-abi';
import { Web3Logs } from '../../src/adapters/chain/web3-logs';
import { InMemoryChainLogs } from '../fakes/in-memory-chain-logs';
import { refusingUrl, startAnvil } from '../support/anvil';
import { eventually } from '../support/process';
import { refuseWideLogRanges, startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import { compileContract } from '../support/solidity';
import { APPROVAL, chainLogsContract, TRANSFER } from './chain-logs.contract';

const ZERO = `0x${'0'.repeat(40)}`;
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

chainLogsContract('in-memory fake', async () => {
  const chain = new InMemoryChainLogs();
  const tokens = ['0x5fbdb2315678afecb367f032d93f642f64180aa3', '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512'] as const;
  const target = { network: 'fake-devnet', chainId: 31337, rpc: ['http://fake-node.invalid/'] };
  return {
    logs: chain, target, tokens,
    mint: async (token, to, amount) => void chain.emit(token, TRANSFER, { from: ZERO, to, value: amount.toString() }),
    approve: async (token, spender, amount) => void chain.emit(token, APPROVAL, { owner: OWNER, spender, value: amount.toString() }),
    mine: async (count) => chain.mine(count),
    refusingRangesOver: async (blocks) => {
      chain.refuseRangesOver(blocks);
      return target;
    },
    deadTarget: async () => {
      chain.refuseRangesOver(undefined);
      chain.failNext(1);
      return target;
    },
    close: async () => {},
  };
});

chainLogsContract('web3 adapter on anvil, MiniToken compiled with solc', async () => {
  const anvil = await startAnvil();
  const abi = new Web3Abi();
  const proxies: RpcProxy[] = [];
  const transact = async (tx: Record<string, string>): Promise<{ contractAddress?: string }> => {
    const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from: OWNER, gas: '0x1e8480', ...tx }]);
    // Automine answers before the block is sealed at times: the receipt is read until it is there.
    return eventually(() => anvil.rpc<{ contractAddress?: string } | null>('eth_getTransactionReceipt', [hash]).then((r) => r ?? undefined), 10_000, 'receipt');
  };
  const code = compileContract('MiniToken.sol', 'MiniToken');
  const tokens = [
    String((await transact({ data: code })).contractAddress).toLowerCase(),
    String((await transact({ data: code })).contractAddress).toLowerCase(),
  ] as const;
  const target = { network: 'anvil', chainId: anvil.chainId, rpc: [anvil.url] };
  return {
    logs: new Web3Logs({ retryRounds: 2, backoffMs: 10, timeoutMs: 2000 }), target, tokens,
    mint: async (token, to, amount) => void (await transact({ to: token, data: abi.encodeCall('mint(address,uint256)', [to, amount.toString()]) })),
    approve: async (token, spender, amount) => void (await transact({ to: token, data: abi.encodeCall('approve(address,uint256)', [spender, amount.toString()]) })),
    mine: async (count) => void (await anvil.rpc('anvil_mine', [`0x${count.toString(16)}`])),
    refusingRangesOver: async (blocks) => {
      const proxy = await startRpcProxy(anvil.url, refuseWideLogRanges(blocks));
      proxies.push(proxy);
      return { ...target, rpc: [proxy.url] };
    },
    deadTarget: async () => ({ ...target, rpc: [await refusingUrl()] }),
    close: async () => {
      await Promise.all(proxies.map((p) => p.stop()));
      await anvil.stop();
    },
  };
});
