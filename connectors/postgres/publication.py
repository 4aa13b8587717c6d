"""The pgoutput publication (``publication.autocreate.mode``) and ``replica.identity.autoset.values``.

Both run at task start on the regular connection, before the slot is created, as Debezium 3.6 does:

* :func:`ensure_publication` reads ``SELECT puballtables FROM pg_publication WHERE pubname = ...`` and then

  ============  =============================================  ==============================================
  mode          publication missing                            publication present
  ============  =============================================  ==============================================
  all_tables    ``CREATE PUBLICATION p FOR ALL TABLES``        used as it is
  disabled      fails: "Publication autocreation is disabled"  used as it is
  filtered      ``CREATE PUBLICATION p FOR TABLE ...``         fails if FOR ALL TABLES; otherwise
                (fails when no table is captured)              ``ALTER PUBLICATION p SET TABLE ...`` when its
                                                               tables differ from the captured ones
  no_tables     ``CREATE PUBLICATION p``                       used as it is
  ============  =============================================  ==============================================

  ``publish.via.partition.root`` and an explicitly set ``skipped.operations`` add ``WITH (...)`` options to
  ``CREATE``. (Debezium 3.6.3 also appends ``WITH (publish = ...)`` to ``ALTER ... SET TABLE``, which
  PostgreSQL rejects; here the publish option is set by a separate ``ALTER PUBLICATION ... SET (...)``.)
  On a standby nothing is created. The tables of ``filtered`` are computed by the caller (the connector's
  include/exclude filters over the catalog).

* :func:`apply_replica_identities` reads each captured table's identity and runs ``ALTER TABLE ... REPLICA
  IDENTITY`` only when it differs from the matching rule; a failure is logged for that table and the others
  go on.

Identifiers are always double-quoted; names are used exactly as configured.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Sequence
from typing import Any, Final

import psycopg

from connect_worker.api.errors import ConfigError
from connectors.postgres.config import AutoCreateMode, PostgresConnectorConfig, ReplicaIdentityRule
from connectors.postgres.errors import PostgresRetriableError, from_psycopg
from connectors.postgres.protocol.commands import quote_ident
from connectors.relational.table import TableId

__all__ = [
    "PublicationResult",
    "ReplicaIdentityChange",
    "apply_replica_identities",
    "create_statement",
    "ensure_publication",
    "publish_option",
    "quote_table",
    "replica_identity_of",
]

log = logging.getLogger(__name__)

_TIMEOUT_STATES: Final = frozenset({"57014", "55P03"})
_TIMED_OUT: Final = (
    "Creation of publication failed: query to create/update publication timed out, please make sure that there "
    "are no maintenance activities going on the database end."
)
_IDENTITY_NAMES: Final = {"d": "DEFAULT", "n": "NOTHING", "f": "FULL", "i": "INDEX"}


@dataclasses.dataclass(frozen=True, slots=True)
class PublicationResult:
    """What :func:`ensure_publication` did: ``action`` is created | altered | unchanged | skipped."""

    name: str
    action: str
    statements: tuple[str, ...] = ()


def quote_table(table: TableId) -> str:
    return f"{quote_ident(table.schema)}.{quote_ident(table.table)}"


def publish_option(config: PostgresConnectorConfig) -> str | None:
    """``insert, update, delete, truncate`` minus the skipped operations; None unless skipped.operations is set."""
    if "skipped.operations" not in config.supplied_keys or not config.skipped_operations:
        return None
    ops = (("c", "insert"), ("u", "update"), ("d", "delete"), ("t", "truncate"))
    return ", ".join(op for letter, op in ops if letter not in config.skipped_operations)


def _with_clause(config: PostgresConnectorConfig) -> str:
    options = []
    if config.publish_via_partition_root:
        options.append("publish_via_partition_root = true")
    publish = publish_option(config)
    if publish is not None:
        options.append(f"publish = '{publish}'")
    return f" WITH ({', '.join(options)})" if options else ""


def create_statement(config: PostgresConnectorConfig, tables: Sequence[TableId] = ()) -> str:
    """The CREATE PUBLICATION statement of the configured mode (``tables`` for ``filtered``)."""
    name = quote_ident(config.publication_name)
    mode = config.publication_autocreate_mode
    if mode is AutoCreateMode.ALL_TABLES:
        return f"CREATE PUBLICATION {name} FOR ALL TABLES{_with_clause(config)};"
    if mode is AutoCreateMode.FILTERED:
        return f"CREATE PUBLICATION {name} FOR TABLE {_table_list(config, tables)}{_with_clause(config)};"
    if mode is AutoCreateMode.NO_TABLES:
        return f"CREATE PUBLICATION {name}{_with_clause(config)};"
    raise ConfigError("Publication autocreation is disabled, please create one and restart the connector.")


def _table_list(config: PostgresConnectorConfig, tables: Iterable[TableId]) -> str:
    listed = ", ".join(quote_table(t) for t in sorted(set(tables)))
    if not listed:
        raise ConfigError(
            f"No table filters found for filtered publication {config.publication_name}",
            name="publication.autocreate.mode",
        )
    return listed


async def ensure_publication(
    conn: psycopg.AsyncConnection[Any], config: PostgresConnectorConfig, tables: Sequence[TableId] = ()
) -> PublicationResult:
    """Create or update the publication per ``publication.autocreate.mode``; pgoutput only.

    ``tables`` are the captured tables (needed for ``filtered`` only). Raises ConfigError for the
    configuration failures of the table above, RetriableError when the statement timed out or lost the
    connection, and the classified server error otherwise.
    """
    name = config.publication_name
    if not config.pgoutput:
        return PublicationResult(name, "skipped")
    log.info("Initializing PgOutput logical decoder publication")
    try:
        async with conn.transaction():
            return await _ensure(conn, config, tables)
    except psycopg.Error as e:
        raise from_psycopg(e, action=f"initializing publication {name!r}") from e


async def _ensure(
    conn: psycopg.AsyncConnection[Any], config: PostgresConnectorConfig, tables: Sequence[TableId]
) -> PublicationResult:
    name = config.publication_name
    mode = config.publication_autocreate_mode
    cur = await conn.execute("SELECT puballtables FROM pg_catalog.pg_publication WHERE pubname = %s", [name])
    row = await cur.fetchone()
    if row is None:
        log.info("Creating new publication '%s' for plugin '%s'", name, config.plugin_name.value)
        statement = create_statement(config, tables)  # raises for 'disabled' and for no filtered tables
        if await _in_recovery(conn):
            log.info("The Postgres server in stand by mode, skip create statement execution")
            return PublicationResult(name, "skipped")
        log.info("Creating Publication with statement '%s'", statement)
        await _execute(conn, statement, config, create=True, tables=tables)
        return PublicationResult(name, "created", (statement,))
    if mode is not AutoCreateMode.FILTERED:
        log.info(
            "A logical publication named '%s' for plugin '%s' and database '%s' is already active on the server "
            "and will be used by the plugin",
            name,
            config.plugin_name.value,
            config.dbname,
        )
        return PublicationResult(name, "unchanged")
    if row[0]:
        raise ConfigError(
            f"A logical publication for all tables named '{name}' for plugin '{config.plugin_name.name}' and "
            f"database '{config.dbname}' is already active on the server and can not be altered. If you need to "
            "exclude some tables or include only specific subset, please recreate the publication with necessary "
            "configuration or let plugin recreate it by dropping existing publication. Otherwise please change "
            "the 'publication.autocreate.mode' property to 'all_tables'.",
            name="publication.autocreate.mode",
        )
    wanted = set(tables)
    table_list = _table_list(config, wanted)
    cur = await conn.execute(
        "SELECT schemaname, tablename FROM pg_catalog.pg_publication_tables WHERE pubname = %s", [name]
    )
    current = {TableId(s, t) for s, t in await cur.fetchall()}
    if current == wanted:
        log.info("Publication '%s' is already up to date with desired tables", name)
        return PublicationResult(name, "unchanged")
    log.info(
        "Publication '%s' has to be updated. Tables to add: %s, Tables to remove: %s",
        name,
        sorted(str(t) for t in wanted - current),
        sorted(str(t) for t in current - wanted),
    )
    statements = [f"ALTER PUBLICATION {quote_ident(name)} SET TABLE {table_list};"]
    publish = publish_option(config)
    if publish is not None:
        statements.append(f"ALTER PUBLICATION {quote_ident(name)} SET (publish = '{publish}');")
    for statement in statements:
        log.info("Updating Publication with statement '%s'", statement)
        await _execute(conn, statement, config, create=False, tables=wanted)
    return PublicationResult(name, "altered", tuple(statements))


async def _in_recovery(conn: psycopg.AsyncConnection[Any]) -> bool:
    cur = await conn.execute("SELECT pg_catalog.pg_is_in_recovery()")
    row = await cur.fetchone()
    return bool(row and row[0])


async def _execute(
    conn: psycopg.AsyncConnection[Any],
    statement: str,
    config: PostgresConnectorConfig,
    *,
    create: bool,
    tables: Iterable[TableId],
) -> None:
    try:
        await conn.execute(statement.encode("utf-8"))
    except psycopg.Error as e:
        if e.sqlstate in _TIMEOUT_STATES:
            raise PostgresRetriableError(_TIMED_OUT, sqlstate=e.sqlstate) from e
        action = statement
        if config.publication_autocreate_mode is AutoCreateMode.FILTERED:
            listed = ", ".join(quote_table(t) for t in sorted(set(tables)))
            verb = "create" if create else "update"
            action = f"Unable to {verb} filtered publication {config.publication_name} for {listed}"
        raise from_psycopg(e, action=action) from e


# -- replica identity --------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class ReplicaIdentityChange:
    """The outcome for one table: its identity before, the wanted one, and whether ALTER TABLE ran or failed."""

    table: TableId
    before: str | None
    wanted: str
    changed: bool
    error: str | None = None


_IDENTITY_QUERY: Final = """
SELECT c.relreplident,
       (SELECT ic.relname FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
         WHERE i.indrelid = c.oid AND i.indisreplident)
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = %s AND c.relname = %s
"""


async def replica_identity_of(conn: psycopg.AsyncConnection[Any], table: TableId) -> str | None:
    """``DEFAULT`` / ``FULL`` / ``NOTHING`` / ``USING INDEX "name"``, None when the table does not exist."""
    cur = await conn.execute(_IDENTITY_QUERY, [table.schema, table.table])
    row = await cur.fetchone()
    if row is None:
        return None
    letter = row[0].decode() if isinstance(row[0], bytes) else str(row[0])
    identity = _IDENTITY_NAMES.get(letter, letter)
    if identity == "INDEX":
        return ReplicaIdentityRule("", "INDEX", row[1]).sql if row[1] is not None else "NOTHING"
    return identity


async def apply_replica_identities(
    conn: psycopg.AsyncConnection[Any], rules: Sequence[ReplicaIdentityRule], tables: Sequence[TableId]
) -> list[ReplicaIdentityChange]:
    """Give each captured table the identity its rule asks for; log and go on when one fails."""
    if not rules:
        return []
    log.info("Updating Replica Identity")
    results: list[ReplicaIdentityChange] = []
    for table in sorted(set(tables)):
        matching = [r for r in rules if r.matches(str(table))]
        if not matching:
            log.debug(
                "Replica identity for table '%s' will not be updated because Replica Identity is not defined on "
                "REPLICA_IDENTITY_AUTOSET_VALUES property",
                table,
            )
            continue
        if len({r.sql for r in matching}) > 1:
            message = f"More than one Regular expressions matched table {table}"
            log.error("Unable to update Replica Identity for table %s: %s", table, message)
            results.append(ReplicaIdentityChange(table, None, matching[0].sql, False, message))
            continue
        wanted = matching[0].sql
        results.append(await _apply_one(conn, table, wanted))
    return results


async def _apply_one(conn: psycopg.AsyncConnection[Any], table: TableId, wanted: str) -> ReplicaIdentityChange:
    try:
        before = await replica_identity_of(conn, table)
    except psycopg.Error as e:
        log.error("Cannot determine REPLICA IDENTITY information for table '%s': %s", table, e)
        return ReplicaIdentityChange(table, None, wanted, False, str(e).strip())
    if before is None:
        log.error("Cannot determine REPLICA IDENTITY information for table '%s': no such table", table)
        return ReplicaIdentityChange(table, None, wanted, False, "no such table")
    if before == wanted:
        log.info("Replica identity for table '%s' is already %s", table, before)
        return ReplicaIdentityChange(table, before, wanted, False)
    statement = f"ALTER TABLE {quote_table(table)} REPLICA IDENTITY {wanted};"
    try:
        async with conn.transaction():
            await conn.execute(statement.encode("utf-8"))
    except psycopg.Error as e:
        error = from_psycopg(e, action=f"setting REPLICA IDENTITY {wanted} on {table}")
        if e.sqlstate == "42501":
            log.warning("Replica identity could not be updated because of lack of privileges: %s", error)
        else:
            log.error("Unable to update Replica Identity for table %s: %s", table, error)
        return ReplicaIdentityChange(table, before, wanted, False, str(error))
    log.info("Replica identity set to %s for table '%s'", wanted, table)
    return ReplicaIdentityChange(table, before, wanted, True)
