"""The broad differential catalogue: PostgreSQL tables, values and connector options run through the real Debezium
and this worker side by side (dual.py, test_broad_pg.py).

Every column type the spec lists (§6) with edge values (NULL, empty, min/max, NaN/±Infinity, infinity dates, very
long and very precise numerics, multibyte and escape-heavy text, TOAST-sized values), arrays of them, ranges,
multiranges, domains, enums, extension types and PostGIS; tables with and without keys under each REPLICA
IDENTITY; unchanged TOAST; primary-key changes; truncates; logical decoding messages; DDL mid-stream. The same
values go through the snapshot (rows present before the connectors start) and the stream (the same rows inserted
again, then updated and deleted).

Values are SQL expressions. A column of the types tables takes its i-th value in row i (NULL past its list), so each
value is checked once per path without one row per value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tests.differential.dual import SYNC, KnownDifference, Scenario


@dataclass(frozen=True)
class Col:
    name: str
    type: str
    values: tuple[str, ...]


def q(*texts: str) -> tuple[str, ...]:
    """SQL string literals (E'' escapes where needed)."""
    out = []
    for t in texts:
        body = t.replace("\\", "\\\\").replace("'", "''").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
        out.append(f"E'{body}'")
    return tuple(out)


EXTENSIONS = (
    "CREATE EXTENSION IF NOT EXISTS hstore",
    "CREATE EXTENSION IF NOT EXISTS ltree",
    "CREATE EXTENSION IF NOT EXISTS citext",
    "CREATE EXTENSION IF NOT EXISTS isn",
    "CREATE EXTENSION IF NOT EXISTS postgis",
)
USER_TYPES = (
    "CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'happy ü')",
    "CREATE DOMAIN public.dnum AS numeric(5,2)",
    "CREATE DOMAIN public.ddnum AS public.dnum",
    "CREATE DOMAIN public.dtext AS varchar(20)",
    "CREATE DOMAIN public.dint AS int NOT NULL DEFAULT 7",
)

BIG_NUMERIC = "(repeat('9', 1000) || '.' || repeat('1', 1000))::numeric"
LONG_TEXT = "(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i)"

# -- scalar types whose values convert in every mode -------------------------------------------------------------
NUMBERS = (
    Col("c_bool", "boolean", ("true", "false")),
    Col("c_bit1", "bit(1)", ("B'1'", "B'0'")),
    Col("c_bit12", "bit(12)", ("B'101010101011'", "B'000000000001'", "B'100000000000'")),
    Col("c_varbit", "bit varying", ("B''", "B'1'", "B'1010101010101010101'", "B'" + "10" * 40 + "'")),
    Col("c_varbit5", "bit varying(5)", ("B'10'", "B'11111'")),
    Col("c_int2", "smallint", ("-32768", "32767", "0")),
    Col("c_int4", "integer", ("-2147483648", "2147483647", "0")),
    Col("c_int8", "bigint", ("-9223372036854775808", "9223372036854775807", "0")),
    Col("c_oid", "oid", ("0", "4294967295")),
    Col("c_real", "real", ("0", "'-0'", "'3.4028235e38'", "'1.4e-45'", "'1.1'", "'-123.456'")),
    Col(
        "c_double",
        "double precision",
        ("0", "'-0'", "'1.7976931348623157e308'", "'4.9e-324'", "'0.1'", "'1e22'", "'-2.5e-10'"),
    ),
    Col("c_real_special", "real", ("'NaN'", "'Infinity'", "'-Infinity'")),
    Col("c_double_special", "double precision", ("'NaN'", "'Infinity'", "'-Infinity'")),
    Col(
        "c_numeric",
        "numeric",
        (
            "0",
            "'-0.000000001'",
            "'12345678901234567890.123456789'",
            "'1.500'",
            "'100000000000000000000'",
            "'-99999999999999999999999999999999999999.999999999999'",
            BIG_NUMERIC,
            "'0.0000000000000000000000000000000000000001'",
        ),
    ),
    Col("c_num10_2", "numeric(10,2)", ("0", "'-5.50'", "'99999999.99'", "'-99999999.99'", "'0.01'", "'7'")),
    Col("c_num38", "numeric(38,0)", ("'99999999999999999999999999999999999999'", "'-1'", "0")),
    Col("c_num_wide", "numeric(1000,500)", ("(repeat('9', 500) || '.' || repeat('1', 500))::numeric", "'-0.5'")),
    Col("c_num7_3", "numeric(7,3)", ("'1234.567'", "'-0.001'")),
    Col("c_num_neg_scale", "numeric(5,-2)", ("'12345'", "'-50'")),
    Col("c_money", "money", ("0", "'-92233720368547758.08'", "'92233720368547758.07'", "'12.34'", "'-0.01'")),
)

TEXTS = (
    Col("c_text", "text", ("''", *q("plain", "multibyte ü € 😀 𝄞", 'quote" back\\ tab\t nl\n cr\r', "\x01\x1f\x7f"))),
    Col("c_text_ls", "text", ("U&'line\\2028sep\\2029para'", "repeat('ab', 5000)")),
    Col("c_varchar", "varchar(10)", ("''", "'0123456789'", "'ü€😀'")),
    Col("c_char", "char(3)", ("'a'", "'abc'", "''")),
    Col("c_bpchar", "bpchar", ("'x  '",)),
    Col("c_name", "name", ("'pg_name'",)),
    Col("c_citext", "citext", ("'MiXeD ü'",)),
    Col("c_json", "json", ('\'{"a": 1, "b": [1, 2, {"c": null}]}\'', "'[]'", "'\"str\"'", "'1e400'", "' {} '")),
    Col("c_jsonb", "jsonb", ('\'{"b": 2, "a": 1}\'', "'null'", '\'{"k": "ü\\\\n"}\'', "'[1.50, 1e3]'")),
    Col("c_xml", "xml", ("'<a>b</a>'", '\'<?xml version="1.0"?><x a="1"/>\'')),
    Col("c_uuid", "uuid", ("'00000000-0000-0000-0000-000000000000'", "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'")),
    Col("c_bytea", "bytea", ("'\\x'", "'\\x00ff10'", "decode(repeat('ab', 100), 'hex')")),
    Col("c_inet", "inet", ("'192.168.0.1/24'", "'::1'", "'2001:db8::1/64'")),
    Col("c_cidr", "cidr", ("'10.0.0.0/8'", "'2001:db8::/32'")),
    Col("c_macaddr", "macaddr", ("'08:00:2b:01:02:03'",)),
    Col("c_macaddr8", "macaddr8", ("'08:00:2b:01:02:03:04:05'",)),
    Col("c_tsvector", "tsvector", ("'a fat cat'",)),
    Col("c_enum", "public.mood", ("'sad'", "'happy ü'")),
    Col("c_dnum", "public.dnum", ("'1.5'", "'-999.99'")),
    Col("c_ddnum", "public.ddnum", ("'2.25'",)),
    Col("c_dtext", "public.dtext", ("'domain text'",)),
    Col("c_hstore", "hstore", (r"""'"a"=>"1", "b"=>NULL, "c d"=>"e\"f ü"'""", "''")),
    Col("c_ltree", "ltree", ("'Top.Science.Astronomy'", "''")),
    Col("c_isbn", "isbn", ("'978-0-393-04002-9'",)),
)

TEMPORALS = (
    Col(
        "c_date",
        "date",
        ("'1970-01-01'", "'0001-01-01'", "'4713-01-01 BC'", "'5874897-12-31'", "'2024-02-29'", "'1969-12-31'"),
    ),
    Col("c_date_inf", "date", ("'infinity'", "'-infinity'")),
    Col("c_time", "time", ("'00:00:00'", "'23:59:59.999999'", "'24:00:00'", "'12:34:56.789'")),
    Col("c_time0", "time(0)", ("'12:34:56'",)),
    Col("c_time3", "time(3)", ("'12:34:56.789'", "'23:59:59.999'")),
    Col("c_timetz", "timetz", ("'12:34:56.789+05:30'", "'00:00:00+14'", "'23:59:59.999999-12'", "'24:00:00+00'")),
    Col(
        "c_ts",
        "timestamp",
        (
            "'1970-01-01 00:00:00'",
            "'294276-12-31 23:59:59.999999'",
            "'4713-01-01 00:00:00 BC'",
            "'2024-02-29 12:34:56.123456'",
            "'1969-12-31 23:59:59.999999'",
            "'2262-04-11 23:47:16.854775'",
        ),
    ),
    Col("c_ts_inf", "timestamp", ("'infinity'", "'-infinity'")),
    Col("c_ts0", "timestamp(0)", ("'2024-02-29 12:34:56'",)),
    Col("c_ts3", "timestamp(3)", ("'2024-02-29 12:34:56.123'", "'0001-01-01 00:00:00'")),
    Col(
        "c_tstz",
        "timestamptz",
        (
            "'1970-01-01 00:00:00+00'",
            "'2024-02-29 12:34:56.123456+05:30'",
            "'0001-01-01 00:00:00+00'",
            "'4713-01-01 00:00:00+00 BC'",
            "'294276-12-31 23:59:59.999999+00'",
            "'infinity'",
            "'-infinity'",
        ),
    ),
    Col("c_tstz3", "timestamptz(3)", ("'2024-02-29 12:34:56.1+00'",)),
    Col(
        "c_interval",
        "interval",
        (
            "'0'",
            "'1 year 2 mons 3 days 04:05:06.789'",
            "'-1 day -00:00:01'",
            "'1 mon'",
            "'00:00:00.000001'",
            "'2147483647 days'",
            "'-2147483648 days'",
            "'123456789 hours'",
        ),
    ),
    Col("c_interval_huge", "interval", ("'-178000000 years'", "'178000000 years'", "'177999999 years 11 mons'")),
)

RANGES = (
    Col("c_int4range", "int4range", ("'[1,10)'", "'empty'", "'(,)'", "'(,5]'")),
    Col("c_int8range", "int8range", ("'[-9223372036854775808,0)'",)),
    Col("c_numrange", "numrange", ("'[1.5,2.5]'", "'(12345678901234567890.123456789,)'")),
    Col("c_tsrange", "tsrange", ("'[2024-01-01 00:00,2024-01-02 00:00)'",)),
    Col("c_tstzrange", "tstzrange", ("'[2024-01-01 00:00+00,infinity)'",)),
    Col("c_daterange", "daterange", ("'[2024-01-01,2024-01-31]'", "'[2024-01-01,infinity)'")),
    Col("c_int4multirange", "int4multirange", ("'{[1,3),[5,7)}'", "'{}'")),
)

GEOMETRY = (
    Col("c_point", "point", ("'(1.5,2.5)'", "'(-0,1e300)'")),
    Col("c_line", "line", ("'{1,2,3}'",)),
    Col("c_lseg", "lseg", ("'[(0,0),(1,1)]'",)),
    Col("c_box", "box", ("'(1,1),(0,0)'",)),
    Col("c_path", "path", ("'[(0,0),(1,1),(2,0)]'",)),
    Col("c_polygon", "polygon", ("'((0,0),(1,1),(1,0))'",)),
    Col("c_circle", "circle", ("'<(0,0),1.5>'",)),
    Col("c_geometry", "geometry", ("'SRID=4326;POINT(1 2)'", "'LINESTRING(0 0,1 1)'")),
    Col("c_geography", "geography", ("'SRID=4326;POINT(1 2)'",)),
)

ARRAYS = (
    Col("a_int4", "integer[]", ("'{1,NULL,3}'", "'{}'", "'{{1,2},{3,4}}'")),
    Col("a_int2", "smallint[]", ("'{-32768,32767}'",)),
    Col("a_int8", "bigint[]", ("'{9223372036854775807}'",)),
    Col("a_float8", "double precision[]", ("'{0.1,-0,1e300}'",)),
    Col("a_float4", "real[]", ("'{1.1}'",)),
    Col("a_bool", "boolean[]", ("'{t,f,NULL}'",)),
    Col("a_text", "text[]", (r"""'{"a,b","c\"d","e\\f",NULL,"","ü"}'""", "'{}'")),
    Col("a_varchar", "varchar(5)[]", ("'{abc}'",)),
    Col("a_char", "char(2)[]", ("'{a}'",)),
    Col("a_numeric", "numeric[]", ("'{1.5,12345678901234567890.123456789,0}'",)),
    Col("a_num10_2", "numeric(10,2)[]", ("'{1.5,-0.01}'",)),
    Col("a_date", "date[]", ("'{1970-01-01,2024-02-29}'",)),
    Col("a_ts", "timestamp[]", ("'{\"2024-02-29 12:34:56.123456\"}'",)),
    Col("a_tstz", "timestamptz[]", ("'{\"2024-02-29 12:34:56.123456+00\"}'",)),
    Col("a_time", "time[]", ("'{12:34:56.789}'",)),
    Col("a_timetz", "timetz[]", ("'{12:34:56+02}'",)),
    Col("a_uuid", "uuid[]", ("'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'",)),
    Col("a_json", "json[]", ("ARRAY['{\"a\":1}'::json]",)),
    Col("a_jsonb", "jsonb[]", ("ARRAY['{\"a\": 1}'::jsonb, 'null'::jsonb]",)),
    Col("a_bytea", "bytea[]", ("ARRAY['\\x00ff'::bytea]",)),
    Col("a_inet", "inet[]", ("'{192.168.0.1,::1}'",)),
    Col("a_cidr", "cidr[]", ("'{10.0.0.0/8}'",)),
    Col("a_macaddr", "macaddr[]", ("'{08:00:2b:01:02:03}'",)),
    Col("a_int4range", "int4range[]", ("'{\"[1,2)\"}'",)),
    Col("a_enum", "public.mood[]", ("'{sad,ok}'",)),
    Col("a_citext", "citext[]", ("'{Ab}'",)),
    Col("a_ltree", "ltree[]", ("'{a.b}'",)),
    Col("a_hstore", "hstore[]", ("ARRAY['a=>1'::hstore]",)),
    Col("a_money", "money[]", ("'{1.5}'",)),
    Col("a_interval", "interval[]", ("'{1 day}'",)),
    Col("a_point", "point[]", ("ARRAY['(1,2)'::point]",)),
    Col("a_varbit", "varbit[]", ("'{101}'",)),
    Col("a_dnum", "public.dnum[]", ("ARRAY[1.5::public.dnum]",)),
    Col("a_geometry", "geometry[]", ("ARRAY['POINT(1 2)'::geometry]",)),
)

NUMERIC_SPECIALS = (
    Col("c_num_special", "numeric", ("'NaN'", "'Infinity'", "'-Infinity'")),
    Col("c_num_special_fixed", "numeric(10,2)", ("'NaN'",)),
)


# -- tables ---------------------------------------------------------------------------------------------------------
def _rows(cols: Sequence[Col]) -> int:
    return max(len(c.values) for c in cols)


def _insert(table: str, cols: Sequence[Col], row: int) -> str:
    values = [c.values[row] if row < len(c.values) else "NULL" for c in cols]
    return f"INSERT INTO {table} ({', '.join(c.name for c in cols)}) VALUES ({', '.join(values)})"


def _create(table: str, cols: Sequence[Col]) -> str:
    return f"CREATE TABLE {table} (id serial PRIMARY KEY, {', '.join(f'{c.name} {c.type}' for c in cols)})"


@dataclass(frozen=True)
class TypesTable:
    """A table of typed columns: its snapshot rows, the same rows inserted again in the stream, then an update of
    row 1 to the values of row 2, an update setting every column NULL, and a delete of the first row."""

    name: str
    cols: tuple[Col, ...]

    @property
    def qualified(self) -> str:
        return f"public.{self.name}"

    def setup(self) -> list[str]:
        return [_create(self.qualified, self.cols), *(_insert(self.qualified, self.cols, i) for i in range(self.rows))]

    @property
    def rows(self) -> int:
        return _rows(self.cols)

    def transactions(self) -> list[list[str]]:
        t = self.qualified
        names = ", ".join(c.name for c in self.cols)
        first_stream_id = self.rows + 1
        return [
            [_insert(t, self.cols, i) for i in range(self.rows)],
            [
                f"UPDATE {t} AS x SET ({names}) = (SELECT {names} FROM {t} WHERE id = 2)"
                f" WHERE x.id = {first_stream_id}",
            ],
            [f"UPDATE {t} SET ({names}) = ROW({', '.join('NULL' for _ in self.cols)}) WHERE id = {first_stream_id + 1}"]
            if len(self.cols) > 1
            else [f"UPDATE {t} SET {self.cols[0].name} = NULL WHERE id = {first_stream_id + 1}"],
            [f"DELETE FROM {t} WHERE id = {first_stream_id}"],
        ]


def types_tables(groups: Mapping[str, Iterable[Col]]) -> list[TypesTable]:
    return [TypesTable(name, tuple(cols)) for name, cols in groups.items()]


ALL_TYPES = types_tables(
    {
        "t_numbers": NUMBERS,
        "t_texts": TEXTS,
        "t_temporals": TEMPORALS,
        "t_ranges": RANGES,
        "t_geometry": GEOMETRY,
        "t_arrays": ARRAYS,
    }
)
SPECIALS = types_tables({"t_num_specials": NUMERIC_SPECIALS})

# -- keys, replica identities, TOAST, truncate, messages, DDL ----------------------------------------------------------
KEYS_SETUP = (
    "CREATE TABLE public.k_pk (id int PRIMARY KEY, a text, n int, big text)",
    "ALTER TABLE public.k_pk ALTER COLUMN big SET STORAGE EXTERNAL",
    "CREATE TABLE public.k_full (id int PRIMARY KEY, a text, big text)",
    "ALTER TABLE public.k_full ALTER COLUMN big SET STORAGE EXTERNAL",
    "ALTER TABLE public.k_full REPLICA IDENTITY FULL",
    "CREATE TABLE public.k_nopk (x int, y text)",
    "ALTER TABLE public.k_nopk REPLICA IDENTITY FULL",
    "CREATE TABLE public.k_nopk_default (x int, y text)",
    "CREATE TABLE public.k_index (id int NOT NULL, u text NOT NULL, v text)",
    "CREATE UNIQUE INDEX k_index_u ON public.k_index (u)",
    "ALTER TABLE public.k_index REPLICA IDENTITY USING INDEX k_index_u",
    "CREATE TABLE public.k_composite (a int, b text, c numeric(6,2), PRIMARY KEY (a, b))",
    "CREATE TABLE public.k_defaults (id int PRIMARY KEY, i int DEFAULT 42, t text DEFAULT 'x', "
    "n numeric(5,2) DEFAULT 1.5, b boolean DEFAULT true, d date DEFAULT '2024-01-01', "
    "ts timestamp DEFAULT now(), tz timestamptz(3) DEFAULT CURRENT_TIMESTAMP(3), iv interval DEFAULT '1 day', "
    "u uuid DEFAULT gen_random_uuid(), j jsonb DEFAULT '{}', e public.mood DEFAULT 'ok', dn public.dint, "
    "v varchar(5) DEFAULT 'ab'::character varying, f8 double precision DEFAULT 1.5e10, "
    "ti time(3) DEFAULT '12:00:00.5', bits bit(3) DEFAULT B'101', d2 date DEFAULT CURRENT_DATE, "
    "ts2 timestamp DEFAULT LOCALTIMESTAMP, "
    "g int GENERATED ALWAYS AS (i * 2) STORED)",
    f"INSERT INTO public.k_pk VALUES (1, 'one', 1, {LONG_TEXT}), (2, 'two', 2, 'small')",
    f"INSERT INTO public.k_full VALUES (1, 'one', {LONG_TEXT})",
    "INSERT INTO public.k_nopk VALUES (1, 'a'), (1, 'a')",
    "INSERT INTO public.k_index VALUES (1, 'u1', 'v1')",
    "INSERT INTO public.k_composite VALUES (1, 'x', 1.5)",
    "INSERT INTO public.k_defaults (id) VALUES (1)",
    "CREATE TABLE public.k_not_captured (id int PRIMARY KEY)",  # in no include list
)
KEYS_SNAPSHOT_RECORDS = 7
KEYS_TABLES = ("public.k_pk", "public.k_full", "public.k_nopk", "public.k_nopk_default", "public.k_index",
               "public.k_composite", "public.k_defaults")  # fmt: skip
KEYS_TRANSACTIONS: tuple[tuple[str, ...], ...] = (
    # unchanged TOAST under DEFAULT and FULL identity; a changed one
    ("UPDATE public.k_pk SET a = 'one-b' WHERE id = 1", "UPDATE public.k_full SET a = 'one-b' WHERE id = 1"),
    (f"UPDATE public.k_pk SET big = {LONG_TEXT} || 'x' WHERE id = 1",),
    # a key-only delete image, with the TOAST column unset
    ("DELETE FROM public.k_pk WHERE id = 2",),
    # a primary-key change, with and without TOAST in the row
    ("UPDATE public.k_pk SET id = 10 WHERE id = 1", "UPDATE public.k_composite SET b = 'y' WHERE a = 1"),
    ("UPDATE public.k_full SET id = 11 WHERE id = 1",),
    # keyless: identical rows, one deleted; inserts only without identity
    ("UPDATE public.k_nopk SET y = 'b' WHERE ctid = (SELECT min(ctid) FROM public.k_nopk)",),
    ("DELETE FROM public.k_nopk WHERE y = 'a'", "INSERT INTO public.k_nopk_default VALUES (5, 'q')"),
    # identity by a unique index: the key is the index's columns? (Debezium: the primary key, none here)
    ("UPDATE public.k_index SET v = 'v2' WHERE id = 1", "UPDATE public.k_index SET u = 'u2' WHERE id = 1"),
    ("DELETE FROM public.k_index WHERE id = 1",),
    ("INSERT INTO public.k_defaults (id, dn) VALUES (2, 3)", "DELETE FROM public.k_defaults WHERE id = 1"),
    # a transaction whose first change is to a table not captured, and one with only such changes: decoderbufs
    # sends their BEGIN/COMMIT (pgoutput only the first's, from its first captured change)
    ("INSERT INTO public.k_not_captured VALUES (1)", "INSERT INTO public.k_pk VALUES (3, 'three', 3, 'x')"),
    ("INSERT INTO public.k_not_captured VALUES (2)",),
    ("UPDATE public.k_pk SET n = 33 WHERE id = 3",),
    # logical decoding messages, transactional and not
    ("SELECT pg_logical_emit_message(true, 'cw', 'in a transaction ü')",),
    ("SELECT pg_logical_emit_message(false, 'cw', '\\x00ff'::bytea)",),
    # DDL mid-stream: a new column with a default, a dropped one, a changed type; each DDL waits until both
    # workers read the changes before it (they read the catalog when the next change of the table arrives)
    (SYNC,),
    ("ALTER TABLE public.k_composite ADD COLUMN d text DEFAULT 'dflt'",),
    ("INSERT INTO public.k_composite VALUES (2, 'z', 2.5, 'given')",),
    (SYNC,),
    ("ALTER TABLE public.k_composite DROP COLUMN d",),
    ("INSERT INTO public.k_composite VALUES (3, 'w', 3.5)",),
    (SYNC,),
    ("ALTER TABLE public.k_composite ALTER COLUMN c TYPE numeric(8,3)",),
    ("INSERT INTO public.k_composite VALUES (4, 'v', 4.125)",),
    (SYNC,),
    ("TRUNCATE public.k_composite",),
    ("INSERT INTO public.k_composite VALUES (5, 'u', 5)",),
)


# Where Debezium 3.6.3 corrupts or loses a value and this worker does not. Each pair is exact; README "Deliberate
# differences from Debezium" says why.
_SNAPSHOT_DATE = "Debezium's snapshot reads dates through java.sql.Date: BC loses its era, infinity wraps"
_NAME_STREAM = "Debezium streams a `name` column as null unless include.unknown.datatypes is on"
_DECODERBUFS_MAX = "decoderbufs' epoch shift overflows past 294247 AD; Debezium reads the wrapped value as -infinity"
KNOWN: tuple[KnownDifference, ...] = (
    KnownDifference("c_date_inf", -622191234, -2147472692, _SNAPSHOT_DATE),
    KnownDifference("c_date_inf", -625821272, -2147472691, _SNAPSHOT_DATE),
    KnownDifference("c_date_inf", "+292278994-08-16Z", "-5877611-06-21Z", _SNAPSHOT_DATE),
    KnownDifference("c_date_inf", "+292269055-12-02Z", "-5877611-06-22Z", _SNAPSHOT_DATE),
    KnownDifference("c_date", 1001860, -2440550, _SNAPSHOT_DATE),
    KnownDifference("c_date", "4713-01-01Z", "-4712-01-01Z", _SNAPSHOT_DATE),
    KnownDifference("c_name", None, "pg_name", _NAME_STREAM),
    KnownDifference("c_ts", -9223372036832400000, -9223372036853775810, _DECODERBUFS_MAX),
    KnownDifference("c_tstz", "-infinity", "+294276-12-31T23:59:59.999999Z", _DECODERBUFS_MAX),
)


def types_scenario(name: str, tables: Sequence[TypesTable], config: Mapping[str, str]) -> Scenario:
    return Scenario(
        name=name,
        tables=[t.qualified for t in tables],
        setup=[*EXTENSIONS, *USER_TYPES, *(s for t in tables for s in t.setup())],
        snapshot_records=sum(t.rows for t in tables),
        transactions=[tx for t in tables for tx in t.transactions()],
        config=config,
        known=KNOWN,
    )


def keys_scenario(name: str, config: Mapping[str, str], *, tables: Sequence[str] = KEYS_TABLES) -> Scenario:
    return Scenario(
        name=name,
        tables=tables,
        setup=[*EXTENSIONS, *USER_TYPES, *KEYS_SETUP],
        snapshot_records=KEYS_SNAPSHOT_RECORDS,
        transactions=KEYS_TRANSACTIONS,
        config=config,
    )


SHAPING = {
    "column.mask.with.5.chars": r"public\.k_pk\.a,public\.t_texts\.c_text,public\.t_texts\.c_varchar,public\.k_pk\.big",
    "column.mask.with.0.chars": r"public\.t_texts\.c_char",
    "column.truncate.to.3.chars": r"public\.t_texts\.c_(name|citext|bpchar|json),public\.k_full\.big",
    "column.mask.hash.SHA-256.with.salt.CzQMA0cB5K": r"public\.k_full\.a,public\.t_texts\.c_dtext",
    "column.mask.hash.v2.MD5.with.salt.salt": r"public\.t_texts\.c_text_ls,public\.k_composite\.b",
    "column.propagate.source.type": r".*\.c_num.*,.*\.c_varchar,.*\.k_defaults\..*",
    "datatype.propagate.source.type": r".+\.TEXT,.+\.BPCHAR",
    "message.key.columns": r"public.k_nopk:x;public.k_index:u,v",
    "column.exclude.list": r"public\.t_texts\.c_xml",
    "include.unknown.datatypes": "true",
    "unavailable.value.placeholder": "hex:c0ffee",
}

SCENARIOS: tuple[Scenario, ...] = (
    types_scenario("types-defaults", ALL_TYPES, {"provide.transaction.metadata": "true"}),
    types_scenario(
        "types-string-micro-isostring",
        [*ALL_TYPES, *SPECIALS],
        {
            "decimal.handling.mode": "string",
            "time.precision.mode": "adaptive_time_microseconds",
            "interval.handling.mode": "string",
            "binary.handling.mode": "base64",
            "hstore.handling.mode": "map",
        },
    ),
    types_scenario(
        "types-double-connect-hex",
        [*ALL_TYPES, *SPECIALS],
        {"decimal.handling.mode": "double", "time.precision.mode": "connect", "binary.handling.mode": "hex"},
    ),
    types_scenario(
        "types-isostring-base64url",
        ALL_TYPES,
        {"time.precision.mode": "isostring", "binary.handling.mode": "base64-url-safe"},
    ),
    keys_scenario(
        "keys-toast-ddl-messages",
        {"provide.transaction.metadata": "true", "skipped.operations": "none"},
    ),
    keys_scenario("keys-shaping", {**SHAPING, "tombstones.on.delete": "false", "skipped.operations": "none"}),
    types_scenario("types-shaping", [ALL_TYPES[1]], SHAPING),
    # every type's reported length and scale, from the catalog (snapshot) and from Relation messages (stream)
    types_scenario("types-propagate", ALL_TYPES, {"column.propagate.source.type": ".*"}),
    types_scenario("types-decoderbufs", ALL_TYPES, {"plugin.name": "decoderbufs"}),
    types_scenario(
        "types-propagate-decoderbufs",
        ALL_TYPES,
        {"plugin.name": "decoderbufs", "column.propagate.source.type": ".*", "time.precision.mode": "microseconds"},
    ),
    types_scenario("types-nanoseconds", [ALL_TYPES[2], ALL_TYPES[5]], {"time.precision.mode": "nanoseconds"}),
    keys_scenario(
        "keys-decoderbufs",
        {"plugin.name": "decoderbufs", "skipped.operations": "none", "provide.transaction.metadata": "true"},
    ),
)
