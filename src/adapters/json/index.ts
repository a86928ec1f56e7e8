export { LosslessJson, parseExactJson } from './exact-json';
