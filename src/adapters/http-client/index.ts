export { FetchHttpClient } from './fetch-http-client';
