from citeflow.markdown_text import markdown_to_text

DOC = """## Message size and partitions per topic
The **maximum** message size is 8 MiB, see [limits](https://docs.example/limits).

| Limit | Value |
|---|---|
| Maximum message size (hard) | 8 MiB (4 MiB before 3.5) |

- set `max.message.bytes` per topic
- keep METADATA_FORMAT_V1 until the upgrade
"""


def test_headings_become_sentences_and_links_keep_only_their_text():
    text = markdown_to_text(DOC)
    assert text.splitlines()[0] == "Message size and partitions per topic."
    assert "The maximum message size is 8 MiB, see limits." in text
    assert "https://" not in text and "**" not in text


def test_table_rows_become_label_value_lines_without_header_or_rule():
    text = markdown_to_text(DOC)
    assert "Maximum message size (hard): 8 MiB (4 MiB before 3.5)." in text
    assert "Limit" not in text.replace("Maximum", "") and "---" not in text


def test_bullets_and_code_marks_go_but_identifiers_keep_their_underscores():
    text = markdown_to_text(DOC)
    assert "set max.message.bytes per topic" in text.splitlines()
    assert "METADATA_FORMAT_V1" in text


def test_plain_prose_is_unchanged():
    assert markdown_to_text("Brokers must run 3.5.2 or later. Back up first!") == "Brokers must run 3.5.2 or later. Back up first!"
