"""LogicalSchema: unique (relation, name), and column lookup that explains its failures."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan
from toolkit.errors import ExprscopeError, FieldRefError


def _schema():
    return plan.LogicalSchema([
        plan.LogicalField("flights", "id", pa.int64(), False),
        plan.LogicalField("flights", "carrier", pa.string()),
        plan.LogicalField("airlines", "carrier", pa.string()),
        plan.LogicalField(None, "total", pa.float64()),
    ])


def test_duplicate_relation_and_name_is_refused_naming_both_fields():
    with pytest.raises(plan.DuplicateFieldError) as info:
        plan.LogicalSchema([plan.LogicalField("t", "a", pa.int64()),
                            plan.LogicalField("u", "a", pa.int64()),
                            plan.LogicalField("t", "a", pa.string())])
    message = str(info.value)
    assert "field 0 and field 2 are both 't.a'" in message
    assert isinstance(info.value, plan.InvariantViolation)
    assert isinstance(info.value, ExprscopeError)


def test_same_name_in_two_relations_is_allowed_and_qualified_lookup_finds_each():
    schema = _schema()
    assert schema.resolve("flights.carrier") == 1
    assert schema.resolve("airlines.carrier") == 2
    assert schema.resolve("total") == 3
    assert schema.resolve("id") == 0


def test_ambiguous_bare_name_lists_the_candidates():
    with pytest.raises(plan.AmbiguousColumnError) as info:
        _schema().resolve("carrier")
    assert info.value.candidates == ("flights.carrier", "airlines.carrier")
    assert "flights.carrier, airlines.carrier" in str(info.value)
    assert isinstance(info.value, FieldRefError)


def test_unknown_column_suggests_close_names_and_lists_all():
    with pytest.raises(plan.ColumnNotFoundError) as info:
        _schema().resolve("carier")
    text = str(info.value)
    assert "did you mean" in text and "'carrier'" in text
    assert "valid columns are: flights.id, flights.carrier, airlines.carrier, total" in text


def test_physical_schema_strips_qualifiers_and_binding_schema_keeps_them():
    schema = _schema()
    assert schema.to_arrow().names == ["id", "carrier", "carrier", "total"]
    assert schema.to_arrow().field(0).nullable is False
    assert schema.binding_schema().names == ["flights.id", "flights.carrier",
                                             "airlines.carrier", "total"]


def test_a_column_with_a_dot_in_its_name_still_resolves():
    schema = plan.LogicalSchema([plan.LogicalField("t", "a.b", pa.int64())])
    assert schema.resolve("a.b") == 0
    assert schema.resolve("t.a.b") == 0


def test_field_refs_by_index_and_nested_relation_name(flights):
    p = plan.scan("flights", flights)
    q = p.project([tk.field(0), tk.field("flights", "carrier")])
    assert q.schema.qualified_names == ["flights.year", "flights.carrier"]
    with pytest.raises(plan.ColumnNotFoundError, match="no column at index 99"):
        p.project([tk.field(99)])


def test_qualified_lookup_is_exact_and_reads_no_bare_name():
    schema = _schema()
    assert schema.index_of_qualified("airlines.carrier") == 2
    assert schema.index_of_qualified("total") == 3
    assert schema.index_of_qualified("carrier") is None  # bare: two fields have it
    assert schema.index_of_qualified("id") is None  # bare, though only one field has it
    dotted = plan.LogicalSchema([plan.LogicalField(None, "t.a", pa.int64()),
                                 plan.LogicalField("t", "a", pa.int64())])
    assert dotted.index_of_qualified("t.a") == 0  # both read so; the first, as a list's index
