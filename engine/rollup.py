"""The daily rollup of LLM calls that the Costs page reads (CallRollup, CallLatency).

Database triggers keep it in step with LLMCall, whoever writes the call (the agents, a bulk
seed, a migration script), so there is no second code path to forget. It is created, and
filled from LLMCall, the first time it is needed (ensure_rollup), in one transaction.

Latency percentiles come from a log-spaced histogram: bucket b holds latencies in
[e^(b/K), e^((b+1)/K)) ms with K = 16/ln 2 (16 buckets per doubling), so a percentile read
back at the bucket's geometric middle is within ~2.2% of the exact value."""

from __future__ import annotations

import math

from sqlalchemy.engine import Connection

from db.models import OPS_INDEXES

BUCKETS_PER_DOUBLING = 16
K = BUCKETS_PER_DOUBLING / math.log(2)
MAX_RELATIVE_ERROR = 2 ** (0.5 / BUCKETS_PER_DOUBLING) - 1  # ~2.2%

_KEYS = "day, kind, model, agent, stage"
_SUMS = ("calls", "errors", "unpriced", "cost_usd", "prompt_tokens", "cached_tokens",
         "completion_tokens", "latency_ms")
SQLITE_TRIGGERS = ("llmcall_rollup_ins", "llmcall_rollup_del", "llmcall_rollup_upd")
# An update of any other column (the request, the response) leaves the rollup alone.
_WATCHED = ("started_at, kind, model, agent, stage, status, cost_usd, prompt_tokens, "
            "cached_tokens, completion_tokens, latency_ms")
PG_TRIGGER = "llmcall_rollup"


def bucket_of(latency_ms: float) -> int:
    return int(math.floor(math.log(max(latency_ms, 1.0)) * K))


def bucket_value(bucket: int) -> float:
    """The latency a bucket stands for: its geometric middle."""
    return math.exp((bucket + 0.5) / K)


def _day(dialect: str, row: str) -> str:
    if dialect == "postgresql":
        return f"(({row}started_at AT TIME ZONE 'UTC')::date)"
    return f"substr({row}started_at, 1, 10)"  # stored as 'YYYY-MM-DD HH:MM:SS.ffffff' UTC


def _bucket(dialect: str, row: str) -> str:
    bigger = "greatest" if dialect == "postgresql" else "max"
    return f"CAST(floor(ln({bigger}({row}latency_ms, 1.0)) * {K!r}) AS INTEGER)"


def _values(dialect: str, row: str, sign: str = "") -> list[str]:
    """One call's contribution to each sum, in _SUMS order."""
    return [
        f"{sign}1",
        f"{sign}(CASE WHEN {row}status = 'ok' THEN 0 ELSE 1 END)",
        f"{sign}(CASE WHEN {row}status = 'ok' AND {row}cost_usd IS NULL THEN 1 ELSE 0 END)",
        f"{sign}coalesce({row}cost_usd, 0)",
        f"{sign}{row}prompt_tokens",
        f"{sign}{row}cached_tokens",
        f"{sign}{row}completion_tokens",
        f"{sign}{row}latency_ms",
    ]


def _add_row(dialect: str, row: str) -> list[str]:
    keys = f"{_day(dialect, row)}, {row}kind, {row}model, {row}agent, {row}stage"
    add = ", ".join(f"{c} = callrollup.{c} + excluded.{c}" for c in _SUMS)
    return [
        f"INSERT INTO callrollup ({_KEYS}, {', '.join(_SUMS)}) "
        f"VALUES ({keys}, {', '.join(_values(dialect, row))}) "
        f"ON CONFLICT ({_KEYS}) DO UPDATE SET {add}",
        f"INSERT INTO calllatency ({_KEYS}, bucket, n) VALUES ({keys}, {_bucket(dialect, row)}, 1) "
        f"ON CONFLICT ({_KEYS}, bucket) DO UPDATE SET n = calllatency.n + 1",
    ]


def _remove_row(dialect: str, row: str) -> list[str]:
    match = (f"day = {_day(dialect, row)} AND kind = {row}kind AND model = {row}model "
             f"AND agent = {row}agent AND stage = {row}stage")
    minus = _values(dialect, row, "-")
    sub = ", ".join(f"{c} = {c} + {v}" for c, v in zip(_SUMS, minus, strict=True))
    return [
        f"UPDATE callrollup SET {sub} WHERE {match}",
        f"DELETE FROM callrollup WHERE {match} AND calls <= 0",
        f"UPDATE calllatency SET n = n - 1 WHERE {match} AND bucket = {_bucket(dialect, row)}",
        f"DELETE FROM calllatency WHERE {match} AND n <= 0",
    ]


def trigger_ddl(dialect: str) -> list[str]:
    if dialect == "postgresql":
        remove = ";\n    ".join(_remove_row(dialect, "OLD."))
        add = ";\n    ".join(_add_row(dialect, "NEW."))
        return [
            f"""CREATE OR REPLACE FUNCTION {PG_TRIGGER}() RETURNS trigger AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    {remove};
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    {add};
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql""",
            f"DROP TRIGGER IF EXISTS {PG_TRIGGER} ON llmcall",
            f"CREATE TRIGGER {PG_TRIGGER} AFTER INSERT OR UPDATE OF {_WATCHED} OR DELETE "
            f"ON llmcall "
            f"FOR EACH ROW EXECUTE FUNCTION {PG_TRIGGER}()",
        ]
    ins, dele, upd = SQLITE_TRIGGERS
    add = ";\n  ".join(_add_row(dialect, "NEW."))
    remove = ";\n  ".join(_remove_row(dialect, "OLD."))
    return [
        f"CREATE TRIGGER IF NOT EXISTS {ins} AFTER INSERT ON llmcall BEGIN\n  {add};\nEND",
        f"CREATE TRIGGER IF NOT EXISTS {dele} AFTER DELETE ON llmcall BEGIN\n  {remove};\nEND",
        f"CREATE TRIGGER IF NOT EXISTS {upd} AFTER UPDATE OF {_WATCHED} ON llmcall BEGIN\n"
        f"  {remove};\n"
        f"  {add};\nEND",
    ]


def drop_triggers(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {PG_TRIGGER} ON llmcall")
        return
    for name in SQLITE_TRIGGERS:
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")


def create_triggers(conn: Connection) -> None:
    for ddl in trigger_ddl(conn.dialect.name):
        conn.exec_driver_sql(ddl)


def has_triggers(conn: Connection) -> bool:
    if conn.dialect.name == "postgresql":
        sql = f"SELECT count(*) FROM pg_trigger WHERE tgname = '{PG_TRIGGER}'"
        return bool(conn.exec_driver_sql(sql).scalar())
    names = ", ".join(f"'{n}'" for n in SQLITE_TRIGGERS)
    sql = f"SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN ({names})"
    return conn.exec_driver_sql(sql).scalar() == len(SQLITE_TRIGGERS)


def fold_in(conn: Connection, *, min_id: int | None = None) -> None:
    """Add calls (all, or those with id >= min_id) to the rollup with two GROUP BYs; for bulk
    loads made while the triggers were off."""
    d = conn.dialect.name
    where = f"WHERE id >= {int(min_id)}" if min_id is not None else "WHERE 1 = 1"
    sums = ", ".join(f"sum({v})" for v in _values(d, ""))
    add = ", ".join(f"{c} = callrollup.{c} + excluded.{c}" for c in _SUMS)
    conn.exec_driver_sql(
        f"INSERT INTO callrollup ({_KEYS}, {', '.join(_SUMS)}) "
        f"SELECT {_day(d, '')}, kind, model, agent, stage, {sums} FROM llmcall {where} "
        f"GROUP BY 1, 2, 3, 4, 5 ON CONFLICT ({_KEYS}) DO UPDATE SET {add}"
    )
    conn.exec_driver_sql(
        f"INSERT INTO calllatency ({_KEYS}, bucket, n) "
        f"SELECT {_day(d, '')}, kind, model, agent, stage, {_bucket(d, '')}, count(*) "
        f"FROM llmcall {where} GROUP BY 1, 2, 3, 4, 5, 6 "
        f"ON CONFLICT ({_KEYS}, bucket) DO UPDATE SET n = calllatency.n + excluded.n"
    )


def lock_writes(conn: Connection) -> None:
    """Take the write lock now: no call may land between a fill and the triggers."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("LOCK TABLE llmcall IN SHARE ROW EXCLUSIVE MODE")
        return
    dbapi = conn.connection.dbapi_connection
    if dbapi is not None and not dbapi.in_transaction:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def ensure_rollup(conn: Connection) -> bool:
    """Create the triggers and fill the rollup from LLMCall if the triggers are missing.
    Returns True when it had to. Call inside a transaction (engine.begin())."""
    for index in OPS_INDEXES:  # create_all adds no index to a table that already exists
        index.create(conn, checkfirst=True)
    if has_triggers(conn):
        return False
    lock_writes(conn)
    if has_triggers(conn):  # another process won the race
        return False
    conn.exec_driver_sql("DELETE FROM callrollup")
    conn.exec_driver_sql("DELETE FROM calllatency")
    fold_in(conn)
    create_triggers(conn)
    return True
