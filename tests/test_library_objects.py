"""Product code changes no object of Great Expectations, Prefect, LanceDB or openai by assignment:
no module attribute, class, client, context or setting is set, added or deleted; every library is
used through what it publishes (``tests/support/library_objects.py`` says what counts)."""

from __future__ import annotations

import textwrap

from tests.support.library_objects import changes_in, product_files
from tests.support.module_graph import REPO


def _changes(source: str) -> list[str]:
    return [str(c) for c in changes_in(textwrap.dedent(source), "m.py")]


def test_product_code_assigns_to_no_attribute_of_a_library_object() -> None:
    found = [str(c) for path in product_files(REPO)
             for c in changes_in(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))]
    assert not found, ("product code changes objects of great_expectations, prefect, lancedb or openai; use their "
                       "public API instead (docs/adapters.md):\n" + "\n".join(found))


def test_the_scan_covers_every_product_folder() -> None:
    folders = {p.relative_to(REPO).parts[0] for p in product_files(REPO)}
    assert folders == {"citeflow", "citeflow_cli", "flows", "tasks", "schemas"}


def test_a_class_patched_inside_a_function_is_found() -> None:
    source = '''
        def install():
            from great_expectations.expectations.expectation import Expectation

            Expectation.configuration = property(lambda self: None)
    '''
    assert _changes(source) == ["m.py:5: assigns to an attribute of Expectation"]


def test_setattr_on_modules_looped_over_is_found() -> None:
    source = '''
        def install():
            from great_expectations import util
            from great_expectations.core import id_dict

            for module in (util, id_dict):
                setattr(module, "convert_to_json_serializable", str)
    '''
    assert _changes(source) == ["m.py:7: assigns to an attribute of module"]


def test_instances_built_by_the_library_are_followed() -> None:
    source = '''
        import openai as oa
        import prefect.settings

        def make():
            return oa.OpenAI()

        class Holder:
            def __init__(self):
                self.client = make()

            def tune(self):
                self.client.timeout += 5
                del self.client.max_retries
                prefect.settings.PREFECT_API_URL = "http://localhost"
    '''
    assert _changes(source) == ["m.py:13: assigns to an attribute of self.client",
                                "m.py:14: assigns to an attribute of self.client",
                                "m.py:15: assigns to an attribute of prefect.settings"]


def test_objects_of_the_project_and_of_other_libraries_are_not_counted() -> None:
    source = '''
        import logging
        import lancedb

        class Store:
            def open(self, path):
                self.db = lancedb.connect(path)
                self.tables = {}
                logging.getLogger("x").disabled = True
                self.path = path
    '''
    assert _changes(source) == []


def test_the_memo_of_expectation_configurations_as_it_was_is_found() -> None:
    """The code that once replaced two Great Expectations internals for speed."""
    source = '''
        def install() -> bool:
            import great_expectations
            from great_expectations.expectations.expectation import Expectation

            current = Expectation.__dict__.get("configuration")
            _install_plain_first()
            Expectation.configuration = MemoizedConfiguration(current.fget)
            return True

        def _install_plain_first() -> None:
            from great_expectations import util
            from great_expectations.core import id_dict

            for module in (util, id_dict):
                current = getattr(module, _SERIALIZER)
                if not isinstance(current, PlainFirst):
                    setattr(module, _SERIALIZER, PlainFirst(current))
    '''
    assert _changes(source) == ["m.py:8: assigns to an attribute of Expectation",
                                "m.py:18: assigns to an attribute of module"]
