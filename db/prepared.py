"""Core statements that SQLAlchemy compiles once per dialect and that run on the connection's
DB-API cursor, for the few statements a hot loop runs thousands of times.

`Connection.execute` spends 20-40 us of Python per statement on its execution context
(cache key, parameter processing, result set-up) where the driver itself takes 4-8 us; the
supervisor loop runs ~25 statements per run, so that context was about a quarter of the
loop's own time (bench/RESULTS.md).
Here SQLAlchemy still writes the SQL for each dialect and its own type processors still
convert every value (datetimes, JSON); what is skipped is the per-call machinery. Errors are
raised as SQLAlchemy's (IntegrityError, DBAPIError with `connection_invalidated`), and a
connection the database dropped is invalidated just as `Connection.execute` would, so callers
cannot tell the difference. Statements run in the connection's current transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement

Params = Mapping[str, Any]


@dataclass
class _Plan:
    """A statement as one dialect runs it."""

    sql: str
    names: tuple[str, ...]
    """The caller's parameter names, in SQL order for a positional paramstyle."""
    sql_names: tuple[str, ...]
    """The same as the SQL spells them (pyformat may escape a name)."""
    processors: tuple[tuple[int, Callable[[Any], Any]], ...]
    """(position in `names`, SQLAlchemy's bind processor) for the values that need one."""
    defaults: dict[str, Any]
    """Values of binds the caller may leave out: literals in the statement, scalar column
    defaults (a step's status "running")."""
    positional: bool
    columns: tuple[Any, ...]
    """The columns a row brings back (selected or RETURNING), for their result processors."""
    results: dict[tuple[Any, ...], tuple[Callable[[Any], Any] | None, ...] | None] = field(
        default_factory=dict)
    """Result processors by the driver's column type codes (what SQLAlchemy keys them on)."""

    def args(self, params: Params) -> Any:
        merged = {**self.defaults, **params} if self.defaults else params
        try:
            values = [merged[n] for n in self.names]
        except KeyError as missing:
            raise TypeError(f"no value for {missing.args[0]!r}, and it has no constant "
                            "default to fill in") from None
        for i, proc in self.processors:
            values[i] = proc(values[i])
        return values if self.positional else dict(zip(self.sql_names, values, strict=True))

    def converters(self, dialect: Dialect, description: Any) -> Any:
        codes = tuple(d[1] for d in description)
        if codes not in self.results:
            procs = tuple(
                col.type.dialect_impl(dialect).result_processor(dialect, code)
                for col, code in zip(self.columns, codes, strict=True)
            )
            self.results[codes] = procs if any(procs) else None
        return self.results[codes]


class Prepared:
    """A Core statement run on the DB-API cursor (see the module's doc).

    `keys`: for an INSERT, the columns it sets. A row may leave out one whose default is a
    constant (or NULL); one whose default is computed in Python (a timestamp) must be given."""

    def __init__(self, stmt: ClauseElement, keys: Sequence[str] | None = None) -> None:
        self.stmt = stmt
        self.keys = list(keys) if keys is not None else None
        self._plans: dict[tuple[Any, ...], _Plan] = {}

    # -- running ------------------------------------------------------------------------

    def run(self, c: Connection, params: Params | None = None) -> int:
        """Execute once; the number of rows changed (DML)."""
        plan = self._plan(c.dialect)
        cur = self._execute(c, plan, plan.args(params or {}), many=False)
        try:
            return int(cur.rowcount)
        finally:
            cur.close()

    def run_many(self, c: Connection, rows: Sequence[Params]) -> None:
        """Execute once per row (the driver's executemany)."""
        if not rows:
            return
        plan = self._plan(c.dialect)
        self._execute(c, plan, [plan.args(r) for r in rows], many=True).close()

    def rows(self, c: Connection, params: Params | None = None) -> list[tuple[Any, ...]]:
        """The rows selected or returned, each value converted as SQLAlchemy converts it."""
        plan = self._plan(c.dialect)
        cur = self._execute(c, plan, plan.args(params or {}), many=False)
        try:
            got = cur.fetchall()
            procs = plan.converters(c.dialect, cur.description) if got else None
        finally:
            cur.close()
        if procs is None:
            return [tuple(r) for r in got]
        return [tuple(p(v) if p else v for p, v in zip(procs, r, strict=True)) for r in got]

    def mappings(self, c: Connection, params: Params | None = None) -> list[dict[str, Any]]:
        """rows(), each as a dict by column key."""
        keys = [col.key for col in self._plan(c.dialect).columns]
        return [dict(zip(keys, r, strict=True)) for r in self.rows(c, params)]

    def scalar(self, c: Connection, params: Params | None = None) -> Any:
        """The first column of the first row, or None (an INSERT's RETURNING id, a max())."""
        got = self.rows(c, params)
        return got[0][0] if got else None

    def _execute(self, c: Connection, plan: _Plan, args: Any, *, many: bool) -> Any:
        proxied = c.connection  # reconnects here if an earlier statement invalidated it
        cur = proxied.cursor()
        try:
            if many:
                cur.executemany(plan.sql, args)
            else:
                cur.execute(plan.sql, args)
        except c.dialect.loaded_dbapi.Error as exc:
            cur.close()
            raise self._translated(c, plan, args, exc) from exc
        return cur

    @staticmethod
    def _translated(c: Connection, plan: _Plan, args: Any, exc: Exception) -> DBAPIError:
        """SQLAlchemy's exception for a driver error, the connection invalidated when the
        database dropped it (as Connection.execute does), so retry logic sees the same."""
        dropped = c.dialect.is_disconnect(exc, c.connection.dbapi_connection, None)
        if dropped:
            c.invalidate(exc)
        return DBAPIError.instance(  # type: ignore[return-value]
            plan.sql,
            args,
            exc,
            c.dialect.loaded_dbapi.Error,
            connection_invalidated=dropped,
            dialect=c.dialect,
        )

    # -- compiling ----------------------------------------------------------------------

    def _plan(self, dialect: Dialect) -> _Plan:
        key = (dialect.name, dialect.driver, dialect.paramstyle, dialect.server_version_info)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._compile(dialect)
        return plan

    def _compile(self, dialect: Dialect) -> _Plan:
        compiled: Any = self.stmt.compile(dialect=dialect, column_keys=self.keys)
        if any(bind.expanding for bind in compiled.binds.values()):
            # its SQL is rendered at each execution, for the list it is given
            raise TypeError("an IN list cannot be prepared; spell it as OR")
        defaults: dict[str, Any] = {}
        given = set(self.keys or ())
        for name, bind in compiled.binds.items():
            if name not in given and bind.value is not None:  # a literal in the statement
                defaults[name] = bind.effective_value
        for key in given:  # a given column the caller leaves out: its default
            col = self.stmt.table.c[key]  # type: ignore[attr-defined]
            if col.default is None:
                defaults[key] = None
            elif col.default.is_scalar:
                defaults[key] = col.default.arg
        prefetch = [(col, col.default) for col in compiled.insert_prefetch]
        prefetch += [(col, col.onupdate) for col in compiled.update_prefetch]
        for col, default in prefetch:
            if default is None or not default.is_scalar:
                raise TypeError(f"{col}: give its value (its default is computed in Python)")
            defaults[col.key] = default.arg
        escaped = getattr(compiled, "escaped_bind_names", None) or {}
        positional = bool(compiled.positional)
        names = tuple(compiled.positiontup if positional
                      else sorted(set(compiled.bind_names.values())))
        processors = tuple(
            (i, proc) for i, name in enumerate(names)
            if (proc := compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
        )
        return _Plan(
            sql=compiled.string,
            names=names,
            sql_names=tuple(escaped.get(n, n) for n in names),
            processors=processors,
            defaults=defaults,
            positional=positional,
            columns=tuple(getattr(self.stmt, "exported_columns", ())),
        )


__all__ = ["Prepared"]
