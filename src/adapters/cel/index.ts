export { CelExpressions } from './cel-expressions';
