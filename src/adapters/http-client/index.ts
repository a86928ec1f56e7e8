export { NodeHttpClient } from './node-http-client';
