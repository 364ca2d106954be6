"""Compiling the data kernel printers read: tables of structs (`static const struct {...} tbl[] =
{...}`, positional and designated initializers) and the keys that name an iterator's loop.

A mixin of `fmtcheck.c.program.Program`, beside the statement compiler that calls it.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c import cfront
from fmtcheck.c.arith import as_int
from fmtcheck.c.nodes import declarator_name
from fmtcheck.c.types import FREE, conv
from fmtcheck.c.values import Frame, LocalStruct, value_key
from fmtcheck.common.errors import Inconclusive


class DataCompiler:
    """Struct tables and iterator keys for `Program`."""

    def _struct_table(self, elem: tuple, init, scope: dict[str, tuple], size: int) -> Callable[[Frame], Any]:
        """`static const struct { const char *name; int shift; } tbl[] = { {"a", 10}, {.name = "b"} }`:
        a list of structs, positional and designated initializers, the rest zero."""
        fields = self._struct_fields(elem[1])
        rows = []
        for item in (c for c in init.named_children if c.type != "comment"):
            if item.type != "initializer_list":
                raise self.unsupported(item, "a struct table entry that is not a braced initializer")
            rows.append(self._struct_row(item, fields, scope))

        def make_table(f: Frame) -> list:
            table = []
            for row in rows + [[]] * (size - len(rows)):
                s = LocalStruct("table")
                s.zeroed = True
                for name, t, fn in row:
                    v = fn(f)
                    s.fields[name] = conv(as_int(v, f, t, name), t) if t[0] == "int" else v
                table.append(s)
            return table

        return make_table

    def _struct_row(self, item, fields: list[tuple[str, tuple]], scope) -> list[tuple[str, tuple, Callable]]:
        row = []
        position = 0
        types = dict(fields)
        for value in (c for c in item.named_children if c.type != "comment"):
            if value.type == "initializer_pair":
                designator = value.child_by_field_name("designator")
                if designator is None or designator.type != "field_designator":
                    raise self.unsupported(value, "an array designator in a struct table entry")
                name = designator.named_children[0].text.decode("latin-1")
                value = value.child_by_field_name("value")
                position = next((k for k, (n, _) in enumerate(fields) if n == name), len(fields)) + 1
            else:
                if position >= len(fields):
                    raise self.unsupported(value, "a struct table entry with more values than the struct has fields")
                name = fields[position][0]
                position += 1
            if value.type == "initializer_list":
                raise self.unsupported(value, "a nested initializer in a struct table entry")
            row.append((name, types.get(name, FREE), self.expr(value, scope).fn))
        return row

    def _struct_fields(self, name: str) -> list[tuple[str, tuple]]:
        """The fields of a struct, in order, from its definition in the declaration or the file."""
        body = None
        decl_type = self.current_decl.child_by_field_name("type") if self.current_decl is not None else None
        if decl_type is not None and decl_type.type == "struct_specifier":
            body = decl_type.child_by_field_name("body")
        if body is None:
            for n in cfront.walk(self.unit.tree.root_node):
                if (n.type == "struct_specifier" and n.child_by_field_name("body") is not None
                        and n.child_by_field_name("name") is not None
                        and n.child_by_field_name("name").text.decode("latin-1") == name):
                    body = n.child_by_field_name("body")
                    break
        if body is None:
            raise self.unsupported(self.current_decl, f"struct {name} of a table is not defined in the input")
        fields = []
        for fd in body.named_children:
            if fd.type != "field_declaration":
                continue
            for d in fd.children_by_field_name("declarator"):
                fname = declarator_name(d)
                if fname:
                    fields.append((fname, self._declared_type(fd, d)))
        return fields

    def _loop_key_part(self, arg, scope) -> Callable[[Frame], str]:
        """How one argument of an iterator macro names the loop: by its value (so a renamed local
        holding the same list head names the same loop), or as written for a member name."""
        text = arg.text.decode("latin-1")
        if arg.type == "identifier" and text not in scope:
            return lambda f: text
        try:
            e = self.expr(arg, scope)
        except Inconclusive:
            return lambda f: text
        fn, t = e.fn, e.type

        def part(f: Frame) -> str:
            try:
                return value_key(fn(f), f, t, text)
            except Inconclusive:
                return text

        return part
