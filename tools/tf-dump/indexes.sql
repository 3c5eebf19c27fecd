-- Made once the recording is loaded (docs/design.md .ask.index): one sort
-- each instead of a b-tree updated on every insert.
-- A function's calls, per thread in time order, with their durations:
-- callers, slowest, histogram (by function), within (a thread's calls of
-- G during a call of F, read from the index alone).
CREATE INDEX call_function ON call(function_id, utid, ts, dur);
-- A call's callees: repeats, and joins on parent_id.
CREATE INDEX call_parent ON call(parent_id);
-- where ARG=VALUE.
CREATE INDEX arg_value ON arg(name, value);
CREATE INDEX info_call ON info(call_id);
