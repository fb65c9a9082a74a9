"""Which dead letters a batch sends, and what Kafka Connect's headers and log line say about one."""

from __future__ import annotations

from lakesink.domain.dead_letters import DeadLetter, Stage, sent_marks, unsent


def letter(offset: int, topic: str = "t", partition: int = 0, **extra: object) -> DeadLetter:
    fields: dict[str, object] = {
        "topic": topic,
        "partition": partition,
        "offset": offset,
        "timestamp": 1_700_000_000_000,
        "key": b"k",
        "value": b"{not json",
        "headers": (("h", b"v"),),
        "stage": Stage.VALUE_CONVERTER,
        "class_name": "org.apache.kafka.connect.json.JsonConverter",
        "error_class": "lakesink.domain.errors.RecordError",
        "error_message": "t-0@5: JsonConverter cannot decode the data",
        **extra,
    }
    return DeadLetter(**fields)  # type: ignore[arg-type]


def test_a_first_run_sends_every_dead_letter_in_source_order() -> None:
    letters = [letter(9, partition=1), letter(4), letter(2, topic="s")]
    assert [(d.topic, d.partition, d.offset) for d in unsent(letters, {})] == [
        ("s", 0, 2),
        ("t", 0, 4),
        ("t", 1, 9),
    ]


def test_letters_below_the_committed_marks_were_sent_by_an_earlier_attempt_of_their_batch() -> None:
    # a crash after the dead-letter transaction and before the commit: the redo meets them again
    letters = [letter(3), letter(7), letter(8), letter(2, partition=1)]
    assert [(d.partition, d.offset) for d in unsent(letters, {("t", 0): 8})] == [(0, 8), (1, 2)]


def test_a_letter_met_twice_in_one_batch_is_sent_once() -> None:
    assert len(unsent([letter(5), letter(5)], {})) == 1


def test_the_marks_are_the_next_offsets_of_what_the_batch_commits() -> None:
    assert sent_marks({("t", 0): 41, ("t", 3): 0}) == {("t", 0): 42, ("t", 3): 1}


def test_context_headers_are_kafka_connects_names_and_utf8_strings() -> None:
    headers = dict(letter(5, stacktrace="Traceback ...").context_headers("my-sink", 0))
    assert headers == {
        "__connect.errors.topic": b"t",
        "__connect.errors.partition": b"0",
        "__connect.errors.offset": b"5",
        "__connect.errors.connector.name": b"my-sink",
        "__connect.errors.task.id": b"0",
        "__connect.errors.stage": b"VALUE_CONVERTER",
        "__connect.errors.class.name": b"org.apache.kafka.connect.json.JsonConverter",
        "__connect.errors.exception.class.name": b"lakesink.domain.errors.RecordError",
        "__connect.errors.exception.message": b"t-0@5: JsonConverter cannot decode the data",
        "__connect.errors.exception.stacktrace": b"Traceback ...",
    }


def test_no_stacktrace_no_stacktrace_header() -> None:
    names = [name for name, _ in letter(5).context_headers("s", 0)]
    assert "__connect.errors.exception.stacktrace" not in names


def test_the_log_line_names_the_record_only_when_asked_and_never_its_data() -> None:
    bare = letter(5).log_line("my-sink-0", include_record=False)
    assert bare.startswith(
        "Error encountered in task my-sink-0. Executing stage 'VALUE_CONVERTER' with class "
        "'org.apache.kafka.connect.json.JsonConverter'"
    )
    assert "offset=" not in bare
    full = letter(5).log_line("my-sink-0", include_record=True)
    assert "where consumed record is {topic='t', partition=0, offset=5, timestamp=1700000000000" in full
    assert "{not json" not in full.split(": ", 1)[0]
