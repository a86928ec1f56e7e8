export { CronerCalendar } from './croner-calendar';
