import type { ListNotifications } from '../../application/notifications/list-notifications.use-case';
import { DELIVERY_STATUSES, NOTIFICATION_TYPES } from '../../domain/notifications/notification';
import { envelope, ERROR, object } from './api-schemas';
import { sendJson } from './json-body';
import type { RouteTable } from './route-table';

/** A delivery of the notifications outbox (CONTRACT 11). */
export const NOTIFICATION_ITEM = object({
  id: 'string', channel: 'string', type: { enum: [...NOTIFICATION_TYPES, 'test'] }, workflow: 'string?', run_id: 'string?',
  status: { enum: [...DELIVERY_STATUSES] }, attempts: 'integer', last_error: 'string?', created_at: 'time', next_at: 'time?',
});

/** `GET /api/notifications`, mounted at `/api`: parse, call the use case, answer JSON. */
export function notificationsRoutes(routes: RouteTable, listNotifications: ListNotifications): ReturnType<RouteTable['router']>['express'] {
  const router = routes.router('/api');
  router.get('/notifications', {
    summary: 'Notification deliveries (webhook, Slack): pending, delivered or failed, with attempts and the last error, newest first',
    tag: 'notifications', security: 'api', query: listNotifications.params,
    responses: {
      200: { description: 'one page, newest first (list envelope)', schema: envelope(NOTIFICATION_ITEM) },
      400: { description: 'a parameter is unknown, repeated or malformed (named in `error`)', schema: ERROR },
    },
  }, async (req, res) => {
    sendJson(res, await listNotifications.execute(req.query as Record<string, unknown>));
  });
  return router.express;
}
