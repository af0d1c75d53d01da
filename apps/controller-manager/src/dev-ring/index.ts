// A ring of managers on the local cluster, for the bench's sharding scenario: the sharder, the
// ControllerRing and supervised manager processes (as `npm start -- --shards=N` runs them).
export { installRing, startSharder, type LocalSharder } from './local-sharder.ts';
export { portsForShard, shardName, shardPorts, startShards, type RingPorts, type ShardPorts } from './shards.ts';
export { SupervisedProcess } from './supervised-process.ts';
