/** The metrics only the tcp prober sets, with upstream's names. */
import { metric } from '../../metrics';

export const PROBE_FAILED_DUE_TO_BYTES = metric('probe_failed_due_to_bytes', 'Whether an expect_bytes check failed the probe');
export const PROBE_EXPECT_INFO = metric('probe_expect_info', 'Constant 1, labelled with what query_response captured from the target');
