"""The ``lakesink`` command line: parses arguments, calls one use case, maps errors to exit codes.

Exit codes: 0 success, 2 invalid input (configuration, KCQL, record; a store refusing the credentials
or a permission, like Kafka refusing an ACL: a grant, not a retry, fixes it), 1 any other failure,
130 interrupted (Ctrl-C), 141 output closed by its reader.
Tracebacks are shown only with ``--log-level DEBUG``.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence

from lakesink.application.log_redaction import RedactingFormatter
from lakesink.domain.errors import (
    AccessDeniedError,
    ConfigError,
    LakesinkError,
    MissingExtraError,
    RecordError,
)
from lakesink.domain.progress import ProgressOutput, silent
from lakesink.domain.tables.maintenance import UNITS_MS, age_ms
from lakesink.domain.tables.orphans import DEFAULT_GRACE_MS

logger = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_INVALID_INPUT = 2
EXIT_INTERRUPTED = 128 + signal.SIGINT  # Ctrl-C, as a shell reports a command it interrupted
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE  # what a shell reports for a tool SIGPIPE ended


def _add_explain(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    kcql = commands.add_parser("kcql", help="work with KCQL statements")
    kcql_commands = kcql.add_subparsers(dest="kcql_command", required=True, metavar="SUBCOMMAND")
    explain = kcql_commands.add_parser(
        "explain",
        help="show every resolved setting of each statement and, given a record, its object key",
        description=(
            "Parse KCQL, resolve every setting (defaults included) and, given a record, "
            "print the object key of a one-record file holding it. Nothing is read or written. "
            "Without a KCQL argument the --config file's own statements are explained; source statements "
            "(... FROM bucket:prefix) as the restore plans them. A Confluent or Aiven S3 sink config "
            "(--config) takes no KCQL: its own keys are explained."
        ),
    )
    explain.add_argument(
        "kcql",
        nargs="?",
        help="one or more KCQL statements separated by ';' (default: the --config file's; none for a "
        "Confluent or Aiven config)",
    )
    explain.add_argument("--config", metavar="FILE", help="connector config (.properties or Kafka Connect JSON)")
    explain.add_argument(
        "--record",
        metavar="JSON",
        help='a record: {"topic","partition","offset","timestamp","key","value","headers"}',
    )
    explain.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    explain.set_defaults(handler=_run_explain)


def _run_explain(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.explain import run_explain_command

    print(run_explain_command(kcql=args.kcql, config_path=args.config, record_text=args.record, as_json=args.json))
    return EXIT_OK


def _add_config(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    config = commands.add_parser("config", help="work with connector config files")
    config_commands = config.add_subparsers(dest="config_command", required=True, metavar="SUBCOMMAND")
    convert = config_commands.add_parser(
        "convert",
        help="print the nearest Lenses-dialect config for a Confluent or Aiven S3 sink config",
        description=(
            "Validate a Confluent S3 sink config (io.confluent.connect.s3.S3SinkConnector) or an Aiven S3 "
            "sink config (io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector) and print the "
            "nearest Lenses-dialect config lakesink runs (.properties) on stdout. Each key that has no "
            "Lenses equivalent is listed on stderr, one line per key, with the reason. Values are "
            "printed as written: config provider references stay references."
        ),
    )
    convert.add_argument(
        "file", metavar="FILE", help="Confluent or Aiven S3 sink config (.properties or Kafka Connect JSON)"
    )
    convert.set_defaults(handler=_run_convert)
    validate = config_commands.add_parser(
        "validate",
        help="check every setting of a config without running it (Kafka Connect's config/validate)",
        description=(
            "Load a sink or restore config of any dialect (Lenses, Confluent, Aiven) as the run would, "
            "converters, transforms and table catalogs included, without Spark, Kafka or the store, and "
            "report every problem at once, per setting. Secrets are never printed. Exits 0 when valid, 2 "
            "when not (docs/operations.md, \"Validating a config\")."
        ),
    )
    validate.add_argument("file", metavar="FILE", help="connector config (.properties or Kafka Connect JSON)")
    validate.add_argument("--json", action="store_true", help="print the report as JSON (schema lakesink.validate/1)")
    validate.add_argument(
        "--connect", action="store_true", help="also check that the bucket(s) and the Kafka cluster answer"
    )
    validate.set_defaults(handler=_run_validate)


def _run_validate(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.validate import run_validate

    report = run_validate(args.file, connect=args.connect)
    print(report.to_json() if args.json else report.to_text())
    return EXIT_OK if report.valid else EXIT_INVALID_INPUT


def _run_convert(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.convert import run_convert

    output = run_convert(args.file)
    sys.stdout.write(output.config)
    for line in output.notes:
        print(line, file=sys.stderr)
    return EXIT_OK


def _add_sink(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sink = commands.add_parser(
        "sink",
        help="run the sink: Kafka topics into object storage, exactly-once by default",
        description=(
            "Stream the configured topics into object storage on Spark. Resumes from the index on "
            "the store; with --once, writes everything available at start, commits and exits."
        ),
    )
    sink.add_argument("--config", metavar="FILE", required=True, help="connector config (.properties or JSON)")
    sink.add_argument("--once", action="store_true", help="write what is available now, then exit 0")
    sink.add_argument("--master", metavar="URL", help=_MASTER_HELP.format(default="local[*]"))
    _add_spark_conf(sink)
    sink.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="where a Spark streaming checkpoint left by an older lakesink version is deleted after the "
        "first commit; no run reads or writes one (default <local tmp>/lakesink-checkpoints/<name>)",
    )
    _add_metrics_flags(sink, " (wins over connect.<p>.metrics.port / metrics.host)")
    sink.add_argument(
        "--log-level",
        default=argparse.SUPPRESS,
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="logging level (also accepted before the command)",
    )
    _add_quiet(sink)
    sink.set_defaults(handler=_run_sink)


def _run_sink(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.sink_command import SinkCommand, run_sink_command

    run_sink_command(
        SinkCommand(
            args.config,
            master=args.master,
            spark_conf=dict(args.conf),
            once=args.once,
            checkpoint=args.checkpoint,
            metrics_port=args.metrics_port,
            metrics_host=args.metrics_host,
        ),
        _progress(args),
    )
    return EXIT_OK


def _add_quiet(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--quiet",
        action="store_true",
        default=argparse.SUPPRESS,
        help="no progress lines or summary on stderr (errors still print; also accepted before the command)",
    )


def _progress(args: argparse.Namespace) -> ProgressOutput:
    """Where the command's progress lines go: stderr (stdout is for results a script parses), or
    nowhere with ``--quiet``."""
    return silent if args.quiet else _to_stderr


def _to_stderr(line: str) -> None:
    """One progress line on stderr. A stderr nobody reads any more (a pipe whose reader exited)
    does not stop the run over a line of progress: the line is dropped, as logging drops its own."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        pass


def _add_metrics_flags(command: argparse.ArgumentParser, config_note: str = "") -> None:
    """``--metrics-port`` and ``--metrics-host``: the command's Prometheus endpoint (docs/operations.md)."""
    command.add_argument(
        "--metrics-port",
        type=_port,
        metavar="N",
        help=f"serve Prometheus metrics on http://<metrics host>:N/metrics while the command runs (0: any free "
        f"port){config_note}; docs/operations.md",
    )
    command.add_argument(
        "--metrics-host",
        metavar="HOST",
        help="address the metrics endpoint listens on (default 127.0.0.1; 0.0.0.0 opens it to other machines)",
    )
_MASTER_HELP = (
    "Spark master (default: spark.master of the Spark configuration, else {default}); under spark-submit "
    "give it to spark-submit instead"
)


def _add_spark_conf(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--conf",
        type=_spark_setting,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, as spark-submit's --conf (repeatable; wins over lakesink's defaults and the "
        "Spark configuration; no credentials: docs/operations.md)",
    )


def _spark_setting(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` with a ``spark.*`` key. The value is never echoed: it may be a credential."""
    key, equals, value = text.partition("=")
    if not equals:
        raise argparse.ArgumentTypeError("expected KEY=VALUE with a spark.* key (no '=' found)")
    if not key.startswith("spark.") or key != key.strip():
        raise argparse.ArgumentTypeError(f"key {key!r} is not a Spark setting: expected spark.<name>=VALUE")
    return key, value


def _port(text: str) -> int:
    """A TCP port, 0 to 65535 (0: the system picks a free one)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r}: expected 0 to 65535")
    return port


def _duration_ms(text: str) -> int:
    """An age such as ``90s``, ``30m``, ``12h`` or ``3d`` (``0`` alone: none), in milliseconds."""
    try:
        return age_ms("--older-than", text)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_demo(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = commands.add_parser(
        "demo",
        help="run the sink end to end on an embedded Kafka and a local S3 server and prove exactly-once",
        description=(
            "Start an embedded Kafka and a moto S3 server on 127.0.0.1, produce sample orders, run "
            "`lakesink sink --once` into S3 (Parquet) and a local directory (JSON), print the object "
            "trees, read everything back independently and check every record arrived exactly once. "
            "Exits 1 when a record is missing, duplicated or different."
        ),
    )
    demo.add_argument("--records", type=int, default=20_000, metavar="N", help="order events to produce (20000)")
    demo.add_argument("--seed", type=int, default=42, help="seed of the generated events (42)")
    demo.add_argument("--master", metavar="URL", default="local[2]", help="Spark master (local[2])")
    demo.set_defaults(handler=_run_demo)


def _run_demo(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.demo import demo_ports
    from lakesink.application.demo.run import DemoOptions, run_demo

    ports = demo_ports()
    try:
        return run_demo(DemoOptions(records=args.records, seed=args.seed, master=args.master), ports)
    except KeyboardInterrupt:
        # The demo's services are stopped by now. Ctrl-C also reached Spark's JVM and PySpark's
        # own SIGINT handler, whose late KeyboardInterrupts can escape interpreter shutdown and
        # turn exit 130 into "killed by SIGINT"; leave at once with the documented code instead.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("lakesink demo: interrupted; services stopped", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)


def _add_restore(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    restore = commands.add_parser(
        "restore",
        help="replay objects from a bucket back into Kafka topics",
        description=(
            "Read objects written by lakesink, Lenses, Aiven or Confluent S3 sinks and produce their "
            "records back into Kafka (key, value, headers, timestamp, partition with an envelope), "
            "exactly once through Kafka transactions. Lenses (KCQL) or Aiven S3 source configs, or "
            "the Confluent S3 sink config that wrote the bucket."
        ),
    )
    restore.add_argument("--config", metavar="FILE", required=True, help="source config, or a Confluent S3 sink config (.properties or Kafka Connect JSON)")
    restore.add_argument("--once", action="store_true", help="restore the objects that exist now, then exit")
    restore.add_argument("--master", metavar="URL", help=_MASTER_HELP.format(default="local[2]"))
    _add_quiet(restore)
    _add_metrics_flags(restore)
    _add_spark_conf(restore)
    restore.set_defaults(handler=_run_restore)


def _run_restore(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.restore import RestoreCommand, run_restore_command
    from lakesink.application.restore import render_summary

    command = RestoreCommand(
        config_path=args.config, once=args.once, master=args.master, spark_conf=dict(args.conf),
        metrics_port=args.metrics_port, metrics_host=args.metrics_host,
    )
    summary = run_restore_command(command, _progress(args))
    print(render_summary(summary))
    return EXIT_OK


def _add_verify(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    verify = commands.add_parser(
        "verify",
        help="check a sink's bucket against its index and topic: gaps, duplicates, orphans, stray keys",
        description=(
            "List what a sink config wrote and read its index: per topic-partition, every offset from "
            "the first stored to the committed one must be in exactly one object, nothing may be stored "
            "beyond the committed offset (but what a pending range plan covers) and every key must fit "
            "the layout. Objects are opened only as far as needed (a Parquet footer, Avro block headers). "
            "A change table ('table.change.format') is read whole and compared with the newest change of each "
            "key its change log holds up to the table's mark. Exits 0 when clean, 1 when anything is found, 2 for an invalid config (see docs/verify.md)."
        ),
    )
    verify.add_argument("--config", metavar="FILE", required=True, help="the sink's config (.properties or JSON)")
    verify.add_argument("--json", action="store_true", help="print the report as JSON (schema lakesink.verify/1)")
    verify.add_argument(
        "--no-table-rows", dest="table_rows", action="store_false",
        help="do not compare change tables with their change logs (that reads every change and every row)",
    )
    _add_quiet(verify)
    _add_metrics_flags(verify, " (not the sink config's metrics.port: the sink may be serving there)")
    verify.set_defaults(handler=_run_verify)


def _run_verify(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.verify import run_verify_command

    report = run_verify_command(
        args.config, _progress(args), metrics_port=args.metrics_port, metrics_host=args.metrics_host,
        table_rows=args.table_rows,
    )
    print(report.to_json() if args.json else report.to_text())
    return EXIT_OK if report.clean else EXIT_FAILURE


def _add_status(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    status = commands.add_parser(
        "status",
        help="show a sink's committed offsets, end offsets, lag and newest object per topic-partition",
        description=(
            "Without Spark: read the sink's index (the committed offsets in exactly-once mode), its "
            "consumer group connect-<name> (what lag tools show; the truth at-least-once), the topics' end "
            "offsets and the newest object stored per topic-partition. Exits 0, 2 for an invalid config, "
            "1 when the store or Kafka does not answer (docs/operations.md)."
        ),
    )
    status.add_argument("--config", metavar="FILE", required=True, help="the sink's config (.properties or JSON)")
    status.add_argument("--json", action="store_true", help="print the report as JSON (schema lakesink.status/1)")
    status.set_defaults(handler=_run_status)


def _run_status(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from lakesink.application.bootstrap.status import run_status_command

    report = run_status_command(args.config)
    if args.json:
        print(report.to_json())
    else:
        print(report.to_text(iso=lambda ms: datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds")))
    return EXIT_OK if report.kafka_error is None else EXIT_FAILURE


def _add_table(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    table = commands.add_parser("table", help="work with the Iceberg and Delta tables a sink writes")
    table_commands = table.add_subparsers(dest="table_command", required=True, metavar="SUBCOMMAND")
    clean = table_commands.add_parser(
        "clean",
        help="delete the Parquet objects under a sink's tables that no table version references",
        description=(
            "For each table of the sink config's statements: list the Parquet objects under its prefix "
            "(its metadata excluded), then the sink's pending range plans, then every file a kept version "
            "of the table references; delete what is in none of them (uploads of runs killed before their "
            "table commit, of a connector retired since) once older than --older-than. Safe while the sink "
            "runs: an upload's plan is durable before it and deleted only after the table commit; the grace "
            "period covers other writers of the table, such as compaction (docs/tables.md)."
        ),
    )
    clean.add_argument("--config", metavar="FILE", required=True, help="the sink's config (.properties or JSON)")
    clean.add_argument(
        "--older-than", type=_duration_ms, default=DEFAULT_GRACE_MS, metavar="AGE", dest="grace_ms",
        help=f"delete only orphans written longer ago than this: N followed by s, m, h or d "
             f"({DEFAULT_GRACE_MS // UNITS_MS['d']}d, as Iceberg's remove_orphan_files); 0 deletes every "
             "orphan, safe when no other program writes the tables",
    )
    clean.add_argument("--dry-run", action="store_true", help="list the orphans, delete nothing")
    clean.set_defaults(handler=_run_table_clean)
    maintain = table_commands.add_parser(
        "maintain",
        help="expire old snapshots, compact closed partitions' small files and delete orphans, once",
        description=(
            "For each table of the sink config's statements, with its connect.<p>.table.maintenance.* settings: "
            "expire the snapshots beyond snapshots.keep (and older than snapshots.max.age), rewrite the small "
            "files of partitions closed for compaction.closed.after into files of compaction.target.file.size "
            "in one commit that keeps the sink's mark, then delete orphans as table clean does. Safe while "
            "the sink runs: its commits win, this command reads again or gives up (docs/tables.md, Maintenance)."
        ),
    )
    maintain.add_argument("--config", metavar="FILE", required=True, help="the sink's config (.properties or JSON)")
    maintain.add_argument("--dry-run", action="store_true", help="say what would be done, commit and delete nothing")
    maintain.set_defaults(handler=_run_table_maintain)


def _run_table_clean(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.tables import clean_tables_command

    cleaned = clean_tables_command(args.config, dry_run=args.dry_run, grace_ms=args.grace_ms)
    for table in cleaned:
        verb = "deleted" if table.deleted else "would delete"
        print(f"{table.table} at {table.location}: {verb} {len(table.orphans)} orphan objects")
        for key in table.orphans:
            print(f"  {key}")
        if table.recent:
            print(f"  kept {len(table.recent)} younger than --older-than (another writer may be about to commit them)")
    return EXIT_OK


def _run_table_maintain(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.tables import maintain_tables_command

    would = "would " if args.dry_run else ""
    for report in maintain_tables_command(args.config, dry_run=args.dry_run):
        print(
            f"{report.table}: {would}expire {report.expired} snapshots, {would}compact {report.compacted} small "
            f"files into {report.written}, {would}delete {len(report.orphans)} orphan objects and "
            f"{len(report.metadata)} metadata files no kept version needs"
        )
    return EXIT_OK


def _add_jvm_archive(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    archive = commands.add_parser(
        "jvm-archive",
        help="build the class archive that starts local Spark in about half the time (make install runs it)",
        description=(
            "Train a Java class-data-sharing archive of Spark's classes for this JVM and PySpark, prove "
            "that a JVM maps it, and install it where local lakesink runs find it (see "
            "docs/operations.md). Does nothing when one is already built, unless --force."
        ),
    )
    archive.add_argument("--force", action="store_true", help="build again even if an archive exists")
    archive.set_defaults(handler=_run_jvm_archive)


def _run_jvm_archive(args: argparse.Namespace) -> int:
    from lakesink.application.bootstrap.jvm_archive import build_archive

    built, message = build_archive(force=args.force)
    print(message, file=sys.stdout if built else sys.stderr)
    return EXIT_OK if built else EXIT_FAILURE


class _VersionAction(argparse.Action):
    """``--version``: the line is looked up only when asked for, not on every command's start."""

    def __init__(self, option_strings: Sequence[str], **kwargs: str | None) -> None:  # argparse's dest, help
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, default=argparse.SUPPRESS, help=kwargs.get("help"))

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from lakesink.application.version import version_line

        print(version_line())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every ``lakesink`` command."""
    parser = argparse.ArgumentParser(
        prog="lakesink",
        description="Kafka topics into object storage and back, on Apache Spark.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="print lakesink's, Python's and PySpark's versions and exit"
    )
    parser.add_argument(
        "--log-level",
        default=os.environ.get("LAKESINK_LOG_LEVEL", "WARNING"),
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="logging level (default: $LAKESINK_LOG_LEVEL or WARNING)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="sink, restore, verify: no progress lines or summary on stderr"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_explain(commands)
    _add_config(commands)
    _add_restore(commands)
    _add_sink(commands)
    _add_verify(commands)
    _add_status(commands)
    _add_table(commands)
    _add_demo(commands)
    _add_jvm_archive(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lakesink`` console script.

    A reader that closes the pipe early (``lakesink kcql explain ... | head -1``) ends the command
    quietly with 141, the status of a Unix tool killed by SIGPIPE, instead of a traceback.
    SIGPIPE itself stays ignored (Python's default): restored, it would kill a sink whose socket
    to a broker or store breaks, instead of letting the client's retries handle it.
    """
    try:
        try:
            return _run(argv)
        finally:  # --help and --version leave through SystemExit: flushed here too, not at exit
            sys.stdout.flush()
    except BrokenPipeError:
        # Python flushes stdout again at exit: point it at /dev/null so that flush cannot fail too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    log_handler = logging.StreamHandler()  # SDK lines at DEBUG carry request headers: redact them
    log_handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=args.log_level, handlers=[log_handler])
    # py4j logs every command it sends the JVM at DEBUG, base64 pickles of the Spark tasks' functions
    # included, and those carry the credentials the tasks need: never below INFO.
    logging.getLogger("py4j").setLevel(max(logging.INFO, logging.getLevelName(args.log_level)))
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except ModuleNotFoundError as error:  # an import no needs_extra guards: the module names the extra
        from lakesink.domain.extras import missing_extra

        missing = missing_extra(error)
        if missing is None:
            raise
        logger.debug("missing extra", exc_info=True)
        return _missing_extra(args, missing)
    except MissingExtraError as error:
        logger.debug("missing extra", exc_info=True)
        return _missing_extra(args, error)
    except (ConfigError, RecordError, AccessDeniedError) as error:
        logger.debug("invalid input", exc_info=True)
        print(f"lakesink: error: {error}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except LakesinkError as error:
        logger.debug("failed", exc_info=True)
        print(f"lakesink: error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        # Ctrl-C: whatever was not committed yet is written again by the next run (the sink resumes
        # from its index, the restore from its last transaction), so it is an ending, not an error.
        logger.debug("interrupted", exc_info=True)
        print(f"lakesink {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _missing_extra(args: argparse.Namespace, error: MissingExtraError) -> int:
    print(error.line(f"lakesink {args.command}"), file=sys.stderr)
    return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
