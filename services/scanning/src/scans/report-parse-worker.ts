// A worker thread of ReportParser's pool: parsing runs beside the service's event loop, not on it.
import { ImportOutcome, ImportRequest, prepareReport } from './report-import';

export = function parse(req: ImportRequest): ImportOutcome {
  return prepareReport(req);
};
