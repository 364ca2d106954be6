"""Compiling the data kernel printers read: tables of structs (`static const struct {...} tbl[] =
{...}`, positional and designated initializers), local arrays sized by a macro the input does not
define, and the keys that name an iterator's loop.

A mixin of `fmtcheck.c.program.Program`, beside the statement compiler that calls it.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c import cfront, headers
from fmtcheck.c.arith import as_int
from fmtcheck.c.nodes import declarator_name
from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.types import FREE, U32, U64, conv, type_size
from fmtcheck.c.values import (
    MAX_LOCAL_ARRAY, Expr, Frame, Free, LocalStruct, Mem, OpaqueGlobal, Table, Unreadable, uninitialised_key,
    value_key,
)
from fmtcheck.common.errors import Inconclusive, InputError, LimitExceeded
from fmtcheck.common.lazyre import lazy_compile

MAX_DESIGNATED_INDEX = 1 << 16  # a designator past this is taken as a value the model cannot fold


def _field_designated(item) -> bool:
    """`.name = value` in a struct initializer."""
    if item.type != "initializer_pair":
        return False
    designator = item.child_by_field_name("designator")
    return designator is not None and designator.type == "field_designator"


_CONDITIONAL = lazy_compile(rb"\s*#\s*(?:if|ifdef|ifndef|elif|else)\b")


class HeaderFields(list):
    """A header struct's (member, type) list; `fixed` when its positions are certain (no `#if`
    in the body), so a positional initializer may use them."""

    fixed = True


class DataCompiler:
    """Struct tables and iterator keys for `Program`."""

    def _struct_table(self, elem: tuple, init, scope: dict[str, tuple], size: int,
                      sized_by: str | None = None) -> Callable[[Frame], Any]:
        """`static const struct { const char *name; int shift; } tbl[] = { {"a", 10}, {.name = "b"} }`:
        a list of structs, positional and designated initializers, the rest zero."""
        fields = self._struct_fields(elem[1])
        slots = self._initializer_slots(init)
        rows: list[list] = [[] for _ in range(max(size, max((i + 1 for i, _ in slots), default=0)))]
        for index, item in slots:
            if item.type != "initializer_list":
                raise self.unsupported(item, "a struct table entry that is not a braced initializer")
            rows[index] = self._struct_row(item, fields, scope)
        rows = rows[:size]

        def make_table(f: Frame) -> list:
            table = Table([], sized_by)
            for row in rows:
                s = LocalStruct("table")
                s.zeroed = True
                for name, t, fn in row:
                    v = fn(f)
                    s.fields[name] = conv(as_int(v, f, t, name), t) if t[0] == "int" else v
                table.append(s)
            return table

        return make_table

    def _macro_sized_array(self, size_node, scope: dict[str, tuple], name: str, elem: tuple,
                           esize: int, values: list | None = None) -> Callable[[Frame], Any]:
        """`unsigned long pages[NR_LRU_LISTS];`, sized by a macro the input does not define: as
        many elements as the macro's value in this run, the value every other use of it reads (a
        loop `lru < NR_LRU_LISTS` fills exactly the array). The pre-pass (`collect_hints`) gives
        such a macro a small positive range, stated in the verdict."""
        size = self.expr(size_node, scope)
        t = size.type if size.type[0] == "int" else U64
        where = self.where(size_node)

        def make_array(f: Frame) -> Mem:
            n = as_int(size.fn(f), f, t, size.text)
            if isinstance(n, Sym):
                raise NotProvable(f"the size of array {name} is an input")
            if n < 0:
                raise Inconclusive(where, f"array {name} has a negative size ({n})")
            if n * esize > MAX_LOCAL_ARRAY:
                raise LimitExceeded(where, f"local array of {n * esize} bytes is over the limit")
            f.ctx.allocate(n * esize, name)
            mem = Mem(bytearray(n * esize), elem=elem)
            mem.sized_by = size.text
            for index, value in values or ():
                if index >= n:
                    continue  # GCC drops the excess elements of an initializer (with a warning)
                v = as_int(value.fn(f), f, elem, value.text)
                if isinstance(v, Sym):
                    raise NotProvable(f"an initializer of array {name} is an input")
                mem.data[index * esize:(index + 1) * esize] = (v & ((1 << (8 * esize)) - 1)).to_bytes(esize, "little")
            return mem

        return make_array

    def _initializer_slots(self, init) -> list[tuple[int, Any]]:
        """(index, value node) of each item of an array initializer, positional or designated
        (`[STATE_IDLE] = "idle"`, `[2 ... 4] = 0`): a designator is an index the code defines
        (an enumerator, a macro of the input, a literal); one the model cannot fold is named."""
        slots = []
        position = 0
        for item in (c for c in init.named_children if c.type != "comment"):
            value = item
            if item.type == "initializer_pair":
                designator = item.child_by_field_name("designator")
                value = item.child_by_field_name("value")
                if designator is not None and designator.type == "subscript_designator":
                    first = last = self._designator_index(designator.named_children[0], item)
                elif designator is not None and designator.type == "subscript_range_designator":
                    first = self._designator_index(designator.child_by_field_name("start"), item)
                    last = self._designator_index(designator.child_by_field_name("end"), item)
                else:
                    raise self.unsupported(item, "a field designator in an array initializer")
                for index in range(first, last + 1):
                    slots.append((index, value))
                position = last + 1
                continue
            slots.append((position, value))
            position += 1
        return slots

    def _designator_index(self, node, item) -> int:
        index = self._const_int(node) if node is not None else None
        if index is None or not 0 <= index < MAX_DESIGNATED_INDEX:
            text = node.text.decode("latin-1") if node is not None else "?"
            raise self.unsupported(item, f"array designator [{text}] whose value is not known")
        return index

    def _initializer_count(self, init) -> int:
        """The elements an initializer gives an array declared without a size."""
        return max((index + 1 for index, _ in self._initializer_slots(init)), default=0)

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
                if not getattr(fields, "fixed", True):
                    raise self.unsupported(value, "a positional initializer of a struct whose members depend on "
                                                  "the build (a #if in its header's definition)")
                if position >= len(fields):
                    raise self.unsupported(value, "a struct table entry with more values than the struct has fields")
                name = fields[position][0]
                position += 1
            if value.type == "initializer_list":
                raise self.unsupported(value, "a nested initializer in a struct table entry")
            row.append((name, types.get(name, FREE), self.expr(value, scope).fn))
        return row

    def uninitialised_struct(self, struct: str, name: str) -> Callable[[Frame], LocalStruct]:
        """A local struct declared without an initializer: what the stack held, but for its array
        members, which are its own storage like a local array (`struct flagsbuf { char buf[N]; }`)."""
        arrays = self._array_members(struct)

        def make_local(f: Frame) -> LocalStruct:
            local = LocalStruct(uninitialised_key(f.ctx.side, name), indeterminate=True)
            for field, (elem, size) in arrays.items():
                local.fields[field] = Mem(bytearray(size), elem=elem)
            return local

        return make_local

    def initialised_struct(self, struct: str, init, scope: dict[str, tuple]) -> Callable[[Frame], LocalStruct]:
        """A local struct with a braced initializer (`= { }`, `= {0}`, `= { .a = 5, .b = x }`):
        the fields it names hold their values, every other field is zero, array members
        included (zeroed storage of the struct's own, as `uninitialised_struct` gives them)."""
        arrays = self._array_members(struct)
        row = self._struct_init_row(struct, init, scope, arrays)

        def make_struct(f: Frame) -> LocalStruct:
            local = LocalStruct("")
            local.zeroed = True
            for field, (elem, size) in arrays.items():
                local.fields[field] = Mem(bytearray(size), elem=elem)
            for name, t, fn in row:
                v = fn(f)
                local.fields[name] = conv(as_int(v, f, t, name), t) if t[0] == "int" else v
            return local

        return make_struct

    def _struct_init_row(self, struct: str, init, scope: dict[str, tuple],
                         arrays: dict) -> list[tuple[str, tuple, Callable]]:
        """The (field, type, value) a struct initializer sets. `{0}` (and `{ }`) zeroes the
        whole struct whatever its layout; any other item needs the struct's definition, and an
        item for an array member must be zero (its storage is zeroed already)."""
        items = [c for c in init.named_children if c.type != "comment"]
        if not items or (len(items) == 1 and items[0].type == "number_literal" and self._const_int(items[0]) == 0):
            return []
        try:
            fields = self._struct_fields(struct)
        except Inconclusive:
            if not all(_field_designated(item) for item in items):
                raise
            return self._undefined_struct_row(struct, init, scope)
        row = self._struct_row(init, fields, scope)
        for (name, _t, _fn), item in zip(row, items):
            value = item.child_by_field_name("value") if item.type == "initializer_pair" else item
            if name in arrays and (value is None or self._const_int(value) != 0):
                raise self.unsupported(item, f"an initializer of array member {name} of a local struct")
        return [entry for entry in row if entry[0] not in arrays]

    def _undefined_struct_row(self, struct: str, init, scope: dict[str, tuple]) -> list[tuple[str, tuple, Callable]]:
        """`static struct bt_sock_list foo_list = { .lock = __RW_LOCK_UNLOCKED(foo_list.lock) };`
        with the struct defined in a header the input lacks: a designated initializer names its
        fields, so the struct needs no definition; a field it does not name is zero, as C has it.
        A value is taken as is only where its type cannot change it (a string, an address, a
        function, NULL, 0); any other (`-1` in an unsigned field, `1` in a
        1-bit signed bitfield, a macro) is `Unreadable`: reading it is inconclusive, naming the field."""
        row = []
        items = [c for c in init.named_children if c.type != "comment"]
        for (name, t, fn), item in zip(self._struct_row(init, [], scope), items):
            value = item.child_by_field_name("value")
            if not self._type_free_value(value):
                unreadable = Unreadable(Inconclusive(
                    self.where(item), f"field .{name} of struct {struct}, which the input does not define, "
                                      "holds a value whose type is not known"))
                fn = (lambda u: lambda f: u)(unreadable)
            row.append((name, t, fn))
        return row

    def _type_free_value(self, value) -> bool:
        """Whether an initializer value means the same in a field of any type it may have."""
        if value is None:
            return False
        if value.type in ("string_literal", "concatenated_string", "pointer_expression"):
            return value.type != "pointer_expression" or value.child_by_field_name("operator").text == b"&"
        if value.type == "identifier":
            text = value.text.decode("latin-1")
            return text in ("NULL", "false") or text in self.unit.functions
        # 0 is 0 in any field (a 1-bit signed bitfield holds 1 as -1)
        return value.type in ("false", "null") or value.type == "number_literal" and self._const_int(value) == 0

    def _array_members(self, struct: str) -> dict[str, tuple[tuple, int]]:
        """The integer array members of a struct the input (or, with --tree, a header) defines,
        with their element type and size in bytes; none when the struct is not defined. A member
        whose size does not fold, or whose elements are not integers (`local_t in_flight[2]` of
        struct disk_stats), is left out alone: it stays what it was (reading it is not modelled),
        and the struct's integer arrays are still its own storage."""
        try:
            fields = self._struct_fields(struct)
        except (Inconclusive, InputError):
            return {}
        arrays = {}
        for field, t in fields:
            if t[0] == "array" and t[2] is not None and t[1][0] == "int":
                arrays[field] = (t[1], t[2] * type_size(t[1]))
        if sum(size for _, size in arrays.values()) > MAX_LOCAL_ARRAY:
            return {}
        return arrays

    def member_type(self, base: tuple, op: str, field: str) -> tuple | None:
        """The type (an integer, a struct, an array of integers) the file's definition gives
        `base->field` (`base.field`), so a read inside a member (`c->opts.rfd`) has it; else None."""
        struct = base[1] if op == "->" and base[0] == "ptr" else base if op == "." else None
        if struct is None or struct[0] != "struct":
            return None
        if struct[1] not in self.struct_members:
            self.struct_members[struct[1]] = dict(self.defined_fields(struct[1]))
        t = self.struct_members[struct[1]].get(field)
        return t if t is not None and (t[0] in ("int", "struct") or t[0] == "array" and t[1][0] == "int") else None

    def member_array(self, node, scope) -> tuple | None:
        """The array type the struct's definition (the file's, or a header's) gives the member
        `node` reads (`ARRAY_SIZE(dev_rcv_lists->rx_sff)`), or None."""
        base = self.expr(node.child_by_field_name("argument"), scope).type
        op = node.child_by_field_name("operator").text.decode()
        struct = base[1] if op == "->" and base[0] == "ptr" else base if op == "." else None
        if struct is None or struct[0] != "struct":
            return None
        t = dict(self.defined_fields(struct[1])).get(node.child_by_field_name("field").text.decode("latin-1"))
        return t if t is not None and t[0] == "array" else None

    def defined_fields(self, name: str) -> list[tuple[str, tuple]]:
        """The fields of struct NAME as the file defines it, else (with `--tree`) as the one
        definition the headers it includes give (none when neither does)."""
        for n in self.unit.nodes_of(self.unit.tree.root_node, ("struct_specifier",)):
            if (n.child_by_field_name("body") is not None
                    and n.child_by_field_name("name") is not None
                    and n.child_by_field_name("name").text.decode("latin-1") == name):
                return self._fields_of(n.child_by_field_name("body"))
        return self.header_fields(name) or []

    def header_fields(self, name: str) -> "HeaderFields | None":
        """The members of struct NAME as the headers the file includes define it (see
        `headers.tree_structs`), parsed once; None when they do not define it once, or its text
        does not parse. A member declared in two branches of a `#if` with two types has neither."""
        if self.tree is None:
            return None
        if name not in self.header_structs:
            self.header_structs[name] = self._parse_header_struct(name)
        return self.header_structs[name]

    def _parse_header_struct(self, name: str) -> "HeaderFields | None":
        if self._tree_structs is None:
            self._tree_structs = headers.tree_structs(self.tree, self.unit.where, self.unit.source.includes)
        text = self._tree_structs.get(name)
        if text is None:
            return None
        lines = text.split(b"\n")
        fixed = not any(_CONDITIONAL.match(line) for line in lines)
        code = b"\n".join(b"" if line.lstrip().startswith(b"#") else line for line in lines) + b";\n"
        try:
            tree = cfront.parse_tree(cfront.preprocess(code, f"struct {name}").text)
        except InputError:
            return None
        body = next((n.child_by_field_name("body") for n in cfront.walk(tree.root_node)
                     if n.type == "struct_specifier" and n.child_by_field_name("body") is not None), None)
        if body is None or any(n.type == "ERROR" or n.is_missing for n in cfront.walk(body)):
            return None
        types: dict[str, tuple] = {}
        assumed = set(self.space.untyped_macros)  # a member's size names no input of the run
        declared = self._fields_of(body)
        self.space.untyped_macros.intersection_update(assumed)
        bits = {declarator_name(d) for fd in body.named_children if fd.type == "field_declaration"
                and any(c.type == "bitfield_clause" for c in fd.children) for d in fd.children_by_field_name("declarator")}
        for field, t in declared:
            # a bitfield is narrower than its declared type and promotes to int: not that type
            types[field] = FREE if field in bits else t if types.get(field, t) == t else FREE
        fields = HeaderFields(types.items())
        fields.fixed = fixed and len(types) == len(declared)
        return fields

    def _struct_fields(self, name: str) -> list[tuple[str, tuple]]:
        """The fields of a struct, in order, from its definition in the declaration or the file."""
        body = None
        decl_type = self.current_decl.child_by_field_name("type") if self.current_decl is not None else None
        if decl_type is not None and decl_type.type == "struct_specifier":
            body = decl_type.child_by_field_name("body")
        if body is None:
            for n in self.unit.nodes_of(self.unit.tree.root_node, ("struct_specifier",)):
                if (n.child_by_field_name("body") is not None
                        and n.child_by_field_name("name") is not None
                        and n.child_by_field_name("name").text.decode("latin-1") == name):
                    body = n.child_by_field_name("body")
                    break
        if body is None:
            found = self.header_fields(name)
            if found is not None:
                return found
            raise self.unsupported(self.current_decl, f"struct {name} of a table is not defined in the input")
        return self._fields_of(body)

    def _fields_of(self, body) -> list[tuple[str, tuple]]:
        fields = []
        for fd in body.named_children:
            if fd.type != "field_declaration":
                continue
            widths = _bitfield_widths(fd)
            for d in fd.children_by_field_name("declarator"):
                fname = declarator_name(d)
                if fname:
                    fields.append((fname, _bitfield_type(self._declared_type(fd, d), widths.get(d.start_byte, 0))))
        return fields

    def _expr_offsetof_expression(self, node, scope):
        """`offsetof(struct sockaddr_un, sun_path)`: see `_offset_of`."""
        tnode, member = node.child_by_field_name("type"), node.child_by_field_name("member")
        if tnode is None or member is None:
            raise self.unsupported(node, "offsetof without a type and a member")
        return self._offset_of(tnode.text, member.text, node)

    def _builtin___fc_offsetof(self, args, node, scope, text):
        """`offsetof(T, a.b[n])`, which the front end spells `__fc_offsetof("T", "a.b[n]")`."""
        if len(args) != 2 or any(a.type != "string_literal" for a in args):
            raise self.unsupported(node, "offsetof of a member designator the model cannot read")
        return self._offset_of(self.string_bytes(args[0]), self.string_bytes(args[1]), node)

    def _offset_of(self, type_text: bytes, member: bytes, node) -> Expr:
        """The offset of a member in a struct is the kernel's layout, which the model does not
        compute: a size_t input named by the type and the designator as written (blanks aside), so
        both sides read the same value for the same member, and no verdict depends on a made-up
        layout."""
        key = f"offsetof({' '.join(type_text.decode('latin-1').split())}, {''.join(member.decode('latin-1').split())})"
        return Expr(lambda f: f.ctx.inputs.int_input(key, U32), U64, node.text.decode("latin-1"), node)

    def _address_name(self, argnode, scope) -> Callable[[Frame], Any]:
        """The name of the address of an object the model holds as a plain value (an element of
        a file's array, `&counters[i]`), for an uninterpreted call that receives it: by the
        array and the index's value, never by the text of a local (a renamed index would name
        another object)."""
        text = argnode.text.decode("latin-1")
        where = self.where(argnode)
        if argnode.type == "subscript_expression":
            base = argnode.child_by_field_name("argument")
            index = self.expr(argnode.child_by_field_name("index"), scope)
            base_name = base.text.decode("latin-1")
            if base.type == "identifier" and base_name not in scope:
                def element_address(f: Frame) -> Any:
                    i = as_int(index.fn(f), f, index.type, index.text)
                    if isinstance(i, Sym):
                        raise NotProvable("an index depends on an input")
                    return Free(f"&{base_name}[{i}]")
                return element_address
        if any(n.type == "identifier" and n.text.decode("latin-1") in scope for n in cfront.walk(argnode)):
            # the address of a local scalar (an out-parameter of an unknown call is the call's):
            # its text would name a local, and two locals of one name in two scopes are two objects
            def unnamed(f: Frame) -> Any:
                raise Inconclusive(where, f"the address of '{text}' is not modelled")
            return unnamed
        return lambda f: Free("&" + text)

    def _opaque_global(self, argnode, scope) -> OpaqueGlobal | None:
        """`&p9_tcp_trans` of a global whose initializer is not modelled: its address alone (see
        `OpaqueGlobal`); None for any other operand."""
        name = argnode.text.decode("latin-1")
        if name in scope or name not in self.unmodelled:
            return None
        return OpaqueGlobal(name, self.unmodelled[name], self.constant_name(name))

    def _loop_key_part(self, arg, scope) -> Callable[[Frame], str]:
        """How one argument of an iterator macro names the loop: by its value (so a renamed local
        holding the same list head names the same loop), or as written for a member name. A list
        head the model cannot evaluate leaves the loop unnamed (inconclusive): its text would name
        the locals that reach it, and a local holds other values at other times."""
        text = arg.text.decode("latin-1")
        if arg.type == "identifier" and text not in scope:
            return lambda f: text
        e = self.expr(arg, scope)
        fn, t = e.fn, e.type
        where = self.where(arg)

        def part(f: Frame) -> str:
            return value_key(fn(f), f, t, text, where)

        return part


def _bitfield_widths(field_declaration) -> dict[int, int | None]:
    """The width of each bitfield declarator of a field declaration (`unsigned int on:1, mode:3;`),
    by the declarator's start: None for a width the model cannot read (a macro)."""
    widths: dict[int, int | None] = {}
    declarator = None
    for child in field_declaration.children:
        if child.type == "bitfield_clause":
            number = next((c for c in child.named_children if c.type == "number_literal"), None)
            text = number.text.decode("latin-1").rstrip("uUlL") if number is not None else ""
            if declarator is not None:
                widths[declarator.start_byte] = int(text, 0) if text.isdigit() else None
        elif child.is_named and child.type not in ("comment",) and child != field_declaration.child_by_field_name("type"):
            declarator = child
    return widths


def _bitfield_type(t: tuple, width: int | None) -> tuple:
    """A bitfield holds `width` bits of its declared integer type (`unsigned int on:1` holds 0 or 1
    and promotes to int, as C says for a field narrower than int); FREE when the width is not
    known or the type is no integer; the declared type when it is no bitfield (width 0)."""
    if width == 0:
        return t
    if width is None or t[0] != "int" or width > t[1]:
        return FREE
    return t if width == t[1] else ("int", width, t[2])
