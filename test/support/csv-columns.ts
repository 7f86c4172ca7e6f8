/** The columns a CSV output adds after the input's, in their order: literal, as a user's sheet sees them. */
export const RESULT_COLUMNS = ['reply', 'status', 'code', 'duration_ms', 'trace_id', 'attempts'];
