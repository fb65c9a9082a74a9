"""The ``lakesink`` command line: parses arguments, calls one use case, maps errors to exit codes.

Exit codes: 0 success, 2 invalid input (configuration, KCQL, record), 1 any other failure.
Tracebacks are shown only with ``--log-level DEBUG``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence

from lakesink.domain.errors import ConfigError, LakesinkError, RecordError

logger = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_INVALID_INPUT = 2


def _add_explain(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    kcql = commands.add_parser("kcql", help="work with KCQL statements")
    kcql_commands = kcql.add_subparsers(dest="kcql_command", required=True, metavar="SUBCOMMAND")
    explain = kcql_commands.add_parser(
        "explain",
        help="show every resolved setting of each statement and, given a record, its object key",
        description=(
            "Parse KCQL, resolve every setting (defaults included) and, given a record, "
            "print the object key of a one-record file holding it. Nothing is read or written."
        ),
    )
    explain.add_argument("kcql", help="one or more KCQL statements separated by ';'")
    explain.add_argument("--config", metavar="FILE", help="connector config (.properties or Kafka Connect JSON)")
    explain.add_argument(
        "--record",
        metavar="JSON",
        help='a record: {"topic","partition","offset","timestamp","key","value","headers"}',
    )
    explain.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    explain.set_defaults(handler=_run_explain)


def _run_explain(args: argparse.Namespace) -> int:
    from lakesink.application.explain import ExplainCommand, explain, render_json, render_text

    command = ExplainCommand.from_cli(kcql=args.kcql, config_path=args.config, record_json=args.record)
    result = explain(command)
    print(render_json(result) if args.json else render_text(result))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every ``lakesink`` command."""
    parser = argparse.ArgumentParser(
        prog="lakesink",
        description="Kafka topics into object storage and back, on Apache Spark.",
    )
    parser.add_argument(
        "--log-level",
        default=os.environ.get("LAKESINK_LOG_LEVEL", "WARNING"),
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="logging level (default: $LAKESINK_LOG_LEVEL or WARNING)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_explain(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lakesink`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except (ConfigError, RecordError) as error:
        logger.debug("invalid input", exc_info=True)
        print(f"lakesink: error: {error}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except LakesinkError as error:
        logger.debug("failed", exc_info=True)
        print(f"lakesink: error: {error}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
