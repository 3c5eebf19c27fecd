-- The database `tf-dump --format=sqlite -o FILE.db DIR` writes
-- (docs/design.md .ask.schema). Times are integer nanoseconds: `ts` since
-- the clock's origin (tf-dump's text shows it as seconds), `dur` a
-- difference of two of them. `sqlite3 FILE.db .schema` shows this text.

CREATE TABLE process (
  upid INTEGER PRIMARY KEY,      -- 1, 2, ... in order of first event
  pid INTEGER,                   -- NULL when the trace does not say
  name TEXT                      -- its main thread's name, when recorded
);

CREATE TABLE thread (
  utid INTEGER PRIMARY KEY,      -- 1, 2, ... in order of first event
  upid INTEGER REFERENCES process,
  pid INTEGER,
  tid INTEGER,
  name TEXT,                     -- as dprint shows it: (name)
  start_ts INTEGER,              -- its first event
  end_ts INTEGER                 -- its last event
);

CREATE TABLE function (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,            -- the tracing name: "parse", "ns::cls::run"
  tu TEXT,                       -- its translation unit's base name
  full_name TEXT NOT NULL UNIQUE -- "<tu>.<name>", as the other outputs show it
);

CREATE TABLE call (
  id INTEGER PRIMARY KEY,        -- in the order calls began
  ts INTEGER NOT NULL,           -- its enter
  dur INTEGER,                   -- exit - enter; NULL: no exit in the recording
  self_dur INTEGER,              -- dur less the time in its callees; NULL with dur
  utid INTEGER NOT NULL REFERENCES thread,
  function_id INTEGER NOT NULL REFERENCES function,
  depth INTEGER NOT NULL,        -- 0: an outermost recorded call of its thread
  parent_id INTEGER REFERENCES call, -- its caller; NULL at depth 0
  args TEXT NOT NULL             -- its arguments as dprint shows them: key=7, s="a b"
);

-- Arguments of calls, and their results under the name 'return'.
CREATE TABLE arg (
  call_id INTEGER NOT NULL REFERENCES call,
  pos INTEGER NOT NULL,          -- 0, 1, ... in parameter order; -1 for 'return'
  name TEXT NOT NULL,            -- the parameter's name
  value TEXT NOT NULL,           -- as dprint shows it, a string without its quotes
  int_value INTEGER,             -- integers, bool (0/1), enums, pointers
  real_value REAL,               -- floating point
  PRIMARY KEY (call_id, pos)
) WITHOUT ROWID;

-- Info calls (TF_INFO functions), each inside the call it was made in.
CREATE TABLE info (
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  utid INTEGER NOT NULL REFERENCES thread,
  call_id INTEGER REFERENCES call, -- NULL: outside any recorded call
  name TEXT NOT NULL               -- the info function's name
);

CREATE TABLE info_arg (
  info_id INTEGER NOT NULL REFERENCES info,
  pos INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  int_value INTEGER,
  real_value REAL,
  PRIMARY KEY (info_id, pos)
) WITHOUT ROWID;

CREATE TABLE exception (
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  utid INTEGER NOT NULL REFERENCES thread,
  call_id INTEGER REFERENCES call, -- the call it passed through
  type TEXT,                       -- the thrown type; for noreturn the callee
  kind TEXT                        -- throw, unwind or noreturn
);

-- Perfetto's trace processor names (perfetto.dev/docs/analysis/sql-tables),
-- so that queries written for it mostly work here: a thread is its track.
CREATE VIEW slice AS
  SELECT c.id AS id, c.ts AS ts, c.dur AS dur, c.utid AS track_id, f.tu AS category,
         f.name AS name, c.depth AS depth, c.parent_id AS parent_id, c.id AS arg_set_id,
         c.self_dur AS self_dur, c.utid AS utid, f.full_name AS full_name, c.args AS args
  FROM call c JOIN function f ON f.id = c.function_id;

CREATE VIEW thread_track AS
  SELECT utid AS id, utid, name FROM thread;

CREATE VIEW args AS
  SELECT call_id AS arg_set_id, 'args.' || name AS flat_key, 'args.' || name AS key,
         int_value,
         CASE WHEN int_value IS NULL AND real_value IS NULL THEN value END AS string_value,
         real_value,
         CASE WHEN int_value IS NOT NULL THEN 'int'
              WHEN real_value IS NOT NULL THEN 'real' ELSE 'string' END AS value_type,
         value AS display_value
  FROM arg;
