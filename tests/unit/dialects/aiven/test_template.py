"""Aiven's template syntax, shared by the sink's naming and the restore's key parsing (reference §A.1)."""

from __future__ import annotations

import pytest

from lakesink.domain.dialects.aiven.template import TemplateVariable, parse_template
from lakesink.domain.errors import ConfigError


def test_variables_parameters_and_literal_text_in_order() -> None:
    assert parse_template("a/{{ topic }}-{{partition:padding=true}}.gz") == (
        "a/",
        TemplateVariable("topic", None, "{{ topic }}"),
        "-",
        TemplateVariable("partition", ("padding", "true"), "{{partition:padding=true}}"),
        ".gz",
    )


def test_what_aivens_regex_does_not_match_stays_literal() -> None:
    # Spaces around ':' or '=' are not allowed; an unclosed '{{' is text (TemplateTest cases).
    assert parse_template("{{ timestamp : unit=yyyy }}") == ("{{ timestamp : unit=yyyy }}",)
    assert parse_template("bb {{ aaa ") == ("bb {{ aaa ",)


def test_only_the_first_parameter_counts_and_yyyy_uppercase_is_rewritten() -> None:
    assert parse_template("{{a:b=c=d}}") == (TemplateVariable("a", ("b", "c"), "{{a:b=c=d}}"),)
    assert parse_template("{{timestamp:unit=YYYY}}") == (
        TemplateVariable("timestamp", ("unit", "yyyy"), "{{timestamp:unit=yyyy}}"),
    )


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{{ }}", "Variable name hasn't been set for template: {{ }}"),
        ("{{:foo=bar}}", "Variable name hasn't been set for template: {{:foo=bar}}"),
        ("{{foo:}}", "Wrong variable with parameter definition"),
        ("{{foo:=bar}}", "Parameter name for variable `foo` has not been set"),
        ("{{foo:tt=}}", "Parameter value for variable `foo` and parameter `tt` has not been set"),
    ],
)
def test_syntax_errors_use_aivens_messages(template: str, message: str) -> None:
    with pytest.raises(ConfigError, match="^" + message.replace("{", r"\{").replace("}", r"\}") + "$"):
        parse_template(template)
