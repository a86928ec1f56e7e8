import { Web3Chain } from '../../src/adapters/chain/web3-chain';
import { InMemoryChain, type InMemoryChainOptions, type ProviderMode } from '../fakes/in-memory-chain';
import { ANSWER_CODE, ANVIL_ACCOUNTS, DEV_BALANCE_WEI, REVERT_CODE, refusingUrl, startAnvil, startSilentServer, type SilentServer } from '../support/anvil';
import { chainContract, type ChainFixture } from './chain.contract';

function fakeFixture(options: InMemoryChainOptions): () => Promise<ChainFixture> {
  return async () => {
    const chain = new InMemoryChain({ chainId: 31337, ...options });
    const accounts = ANVIL_ACCOUNTS.slice(0, 6);
    for (const a of accounts) chain.addAccount(a.privateKey, a.address, DEV_BALANCE_WEI);
    let next = 0;
    const url = (mode: ProviderMode, path: string): string => {
      const made = `http://127.0.0.1:${9000 + next++}/v3/${path}`;
      chain.setProvider(made, mode);
      return made;
    };
    return {
      ports: (portOptions = {}) => chain.client(portOptions),
      target: { network: 'fake-devnet', chainId: 31337, rpc: ['http://fake-node.invalid/v3/OK-SECRET-KEY'] },
      accounts,
      refusingUrl: async () => url('refuse', 'REFUSED-SECRET-KEY'),
      hangingUrl: async () => url('hang', 'HANGING-SECRET-KEY'),
      makeReverting: async (address) => {
        chain.revertCallsTo(address);
      },
      makeAnswering: async (address) => {
        chain.answerCalls(address, () => `0x${42n.toString(16).padStart(64, '0')}`);
      },
      holdMining: async () => {
        chain.holdMining();
      },
      mine: async () => {
        chain.mine();
      },
      close: async () => {},
    };
  };
}

chainContract('in-memory fake', fakeFixture({}));
chainContract('in-memory fake charging an L1 data fee (OP-stack)', fakeFixture({ l1FeeWei: 123_456_789n }));

chainContract('web3 adapter on anvil', async () => {
  const anvil = await startAnvil();
  const servers: SilentServer[] = [];
  return {
    ports: (options = {}) => new Web3Chain(options),
    target: { network: 'anvil', chainId: anvil.chainId, rpc: [anvil.url] },
    accounts: anvil.accounts.slice(0, 6),
    refusingUrl: () => refusingUrl(),
    hangingUrl: async () => {
      const server = await startSilentServer();
      servers.push(server);
      return server.url;
    },
    makeReverting: (address) => anvil.setCode(address, REVERT_CODE),
    makeAnswering: (address) => anvil.setCode(address, ANSWER_CODE),
    holdMining: async () => {
      await anvil.rpc('evm_setAutomine', [false]);
    },
    mine: async () => {
      await anvil.rpc('evm_mine');
      await anvil.rpc('evm_setAutomine', [true]);
    },
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
      await anvil.stop();
    },
  };
});
