/**
 * The slice worker: reads slices of local Files for the parser worker and transfers their buffers
 * (worker/slice-service.ts says why a second thread). It is handed one MessagePort by the page and nothing else.
 */
import { serveSlices } from './slice-service';

const scope = self as unknown as { onmessage: ((event: MessageEvent<{ port: MessagePort }>) => void) | null };

scope.onmessage = (event) => {
  serveSlices(event.data.port);
};
