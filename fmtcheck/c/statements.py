"""Compiling C statements (blocks, declarations, if/for/while/do/switch, goto and labels) to closures.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from fmtcheck.c import symbolic
from fmtcheck.c import cfront
from fmtcheck.c.arith import as_int
from fmtcheck.c.rows import ORDINARY, break_row, chain_loop, counted_loop, guarded_loop, past_the_step_bound, row, symbolic_loop
from fmtcheck.c import loopshapes, sameloops
from fmtcheck.c.switches import compile_switch
from fmtcheck.c.nodes import callee, declarator_name, declare, snip, static_state_key
from fmtcheck.c.types import FREE, S32, U64, conv, type_size
from fmtcheck.c.values import (
    BREAK,
    CONTINUE,
    MAX_LOCAL_ARRAY,
    Frame,
    Free,
    Goto,
    LocalStruct,
    Table,
    Mem,
    Return,
    Unset,
    uninitialised_key,
)
from fmtcheck.common.errors import FmtcheckError, Inconclusive, InputError, LimitExceeded


class StatementCompiler:
    """Statement compilers of `Program`: one `_stmt_<kind>` method per tree-sitter statement kind."""

    # -- statements -----------------------------------------------------------------------
    def _compile_block(self, node, scope: dict[str, tuple], in_loop: object = None) -> Callable[[Frame], Any]:
        if node is None:
            return lambda f: None
        scope = dict(scope)
        children = [c for c in node.named_children if c.type != "comment"]
        labels: dict[str, int] = {}
        stmts = []
        skips: dict[int, Callable[[Callable[[Frame], Any]], Callable[[Frame], Any]]] = {}
        in_loop = None if any(c.type == "labeled_statement" for c in children) else in_loop
        for c in children:
            if c.type == "labeled_statement":
                labels[c.child_by_field_name("label").text.decode("latin-1")] = len(stmts)
            if in_loop is not None and _jump_if(c, "continue_statement"):
                skips[len(stmts)] = skip_rest(self, c, scope)
                stmts.append(None)
                continue
            if in_loop is not None and _jump_if(c, "break_statement"):
                skips[len(stmts)] = break_rest(self, c, scope, in_loop)
                stmts.append(None)
                continue
            s = self.stmt(c, scope)
            if s is not None:
                stmts.append(s)
        if labels:
            return block_with_labels(self, stmts, labels, node)
        return _with_skips(stmts, skips) if skips else in_order(stmts)

    def stmt(self, node, scope: dict[str, tuple]) -> Callable[[Frame], Any] | None:
        kind = node.type
        handler = getattr(self, "_stmt_" + kind, None)
        if handler is None:
            if kind == "ERROR":
                raise InputError(self.where(node), f"C syntax error near '{snip(node)}'")
            raise self.unsupported(node, f"unsupported statement '{kind}'")
        if kind == "expression_statement":  # a printing statement may be kept across judgements
            return self.reuse.statement(self, node, scope, lambda: handler(node, scope))
        return handler(node, scope)

    def _step(self, node) -> Callable[[Frame], None]:
        where = self.where(node)

        def step(f: Frame) -> None:
            ctx = f.ctx
            ctx.steps += 1
            if ctx.steps > ctx.limit:
                raise LimitExceeded(where, f"step limit reached ({ctx.limit} steps)")

        return step

    def _stmt_compound_statement(self, node, scope):
        return self._compile_block(node, scope)

    def _stmt_expression_statement(self, node, scope):
        if not node.named_children:
            return None
        choice = _choice_argument(node.named_children[0])
        if choice is not None:
            return call_per_arm(self, node, choice, scope)
        e = self.expr(node.named_children[0], scope)
        fn = e.fn

        def run(f: Frame) -> None:
            fn(f)

        return run

    def _stmt_declaration(self, node, scope):
        actions: list[Callable[[Frame], None]] = []
        for child in node.children:
            if child.type not in ("init_declarator", "identifier", "array_declarator", "pointer_declarator"):
                continue
            d = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
            name = declarator_name(d)
            if not name:
                continue
            t = self._declared_type(node, d)
            self.current_decl = node
            init = child.child_by_field_name("value") if child.type == "init_declarator" else None
            self.note_unfolded_size(node, name, t)
            if t[0] == "array" and t[2] is None and init is not None:
                if init.type in ("string_literal", "concatenated_string"):
                    t = ("array", t[1], len(self.string_bytes(init)) + 1)
                elif init.type == "initializer_list" and not (t[1][0] == "int" and self.unfolded_size is not None):
                    t = ("array", t[1], self._initializer_count(init))
            state = static_state_key(node, d)
            make = self._initializer(t, init, scope, name) if state is None else (lambda f, key=state: Free(key))
            scope[name] = t
            actions.append(declare(name, make))
        if not actions:
            return None

        def run(f: Frame) -> None:
            for a in actions:
                a(f)

        return run

    def note_unfolded_size(self, decl, name: str, t: tuple) -> None:
        """Before an array's initializer is compiled: a size the model cannot fold (a macro the
        input does not define) means the table may be longer than the entries it shows."""
        self.unfolded_size = _array_size_text(decl, name) if t[0] == "array" and t[2] is None else None

    def _initializer(self, t: tuple, init, scope: dict[str, tuple], name: str) -> Callable[[Frame], Any]:
        if t[0] == "array":
            return self._array_init(t, init, scope, name)
        if t[0] == "struct" and t[1] != "seq_file":
            if init is not None and init.type == "initializer_list":
                return self.initialised_struct(t[1], init, scope)
            if init is None:
                return self.uninitialised_struct(t[1], name)
        if init is None:
            if t[0] == "int":
                return lambda f: 0
            return lambda f: Unset(uninitialised_key(f.ctx.side, name))
        e = self.expr(init, scope)
        fn = e.fn
        if t[0] == "int":
            et = e.type if e.type[0] == "int" else t  # read at its own type (as `=`), then converted
            def init_int(f: Frame) -> Any:
                return conv(as_int(fn(f), f, et, e.text), t)
            return init_int

        def init_other(f: Frame) -> Any:
            value = fn(f)
            if isinstance(value, Free):
                f.ctx.aliases.setdefault(value.key, name)
            return value

        return init_other

    def _array_init(self, t: tuple, init, scope: dict[str, tuple], name: str) -> Callable[[Frame], Any]:
        elem = t[1]
        n = t[2]
        esize = type_size(elem) if elem[0] == "int" else 8
        if init is not None and init.type in ("string_literal", "concatenated_string"):
            data = self.string_bytes(init) + b"\x00"
            size = n if n is not None else len(data)
            content = bytearray(data[:size].ljust(size, b"\x00"))
            return lambda f: Mem(bytearray(content), elem=elem)
        sized_by = self.unfolded_size
        if init is not None and init.type == "initializer_list" and elem[0] == "struct" and elem[1] != "seq_file":
            return self._struct_table(elem, init, scope, n if n is not None else self._initializer_count(init),
                                      sized_by)
        if init is not None and init.type == "initializer_list":
            slots = self._initializer_slots(init)
            if n is None and elem[0] == "int" and sized_by is not None:
                # `unsigned long count[MIGRATE_TYPES] = { 0, };`: as long as the macro says, the
                # initializer's values first and zero after them
                size_node = _array_size_node(self.current_decl, name)
                self.unknown_size[name] = sized_by
                values = [(index, self.expr(value, scope)) for index, value in slots]
                return self._macro_sized_array(size_node, scope, name, elem, esize, values)
            size = n if n is not None else self._initializer_count(init)
            if size * esize > MAX_LOCAL_ARRAY:
                raise LimitExceeded(self.where(init), "local array too large")
            # the value at each index (the last designator wins, as in C); the rest zero
            by_index = {index: self.expr(value, scope).fn for index, value in slots if index < size}
            fns = [by_index.get(k, lambda f: 0) for k in range(size)]
            if elem[0] == "ptr":
                # a table of strings (state names, flag mnemonics): a list of pointers
                def make_table(f: Frame) -> list:
                    return Table([fn(f) for fn in fns], sized_by)
                return make_table
            if elem[0] != "int":
                raise self.unsupported(init, "arrays of non-integer elements are not modelled")

            def make_list(f: Frame) -> Mem:
                buf = bytearray(size * esize)
                for k, fn in enumerate(fns):
                    buf[k * esize:(k + 1) * esize] = element_bytes(as_int(fn(f), f, elem, ""), elem, esize)
                return Mem(buf, elem=elem)

            return make_list
        if n is None:
            size_node = _array_size_node(self.current_decl, name)
            if size_node is None:
                raise self.unsupported(init, f"array {name} has no size")
            self.unknown_size[name] = size_node.text.decode("latin-1")
            return self._macro_sized_array(size_node, scope, name, elem, esize)
        if n < 0:
            raise Inconclusive(name, f"array {name} has a negative size ({n})")
        if n * esize > MAX_LOCAL_ARRAY:
            raise LimitExceeded(name, f"local array of {n * esize} bytes is over the limit")
        def make_array(f: Frame) -> Mem:
            f.ctx.allocate(n * esize, name)
            return Mem(bytearray(n * esize), elem=elem)

        return make_array

    def _stmt_if_statement(self, node, scope):
        cond = self._cond(node.child_by_field_name("condition"), scope, rows=True)
        then = self.stmt(node.child_by_field_name("consequence"), dict(scope)) or (lambda f: None)
        alt_node = node.child_by_field_name("alternative")
        if alt_node is not None and alt_node.type == "else_clause":
            alt_node = alt_node.named_children[0] if alt_node.named_children else None
        alt = self.stmt(alt_node, dict(scope)) if alt_node is not None else None
        site = (self.label, node.start_byte)
        where = self.where(node)

        def run_if(f: Frame) -> Any:
            c = cond(f)
            if c is True:
                return then(f)
            if c is False:
                return alt(f) if alt is not None else None
            return row(f, c, then, alt, site, where)

        return run_if

    def _cond(self, node, scope, rows: bool = False) -> Callable[[Frame], Any]:
        if node is not None and node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        return self.operand_truth(self.expr(node, scope), rows)

    def _stmt_for_statement(self, node, scope):
        same = same_loop(self, node, scope)
        scope = dict(scope)
        init_node = node.child_by_field_name("initializer")
        cond_node = node.child_by_field_name("condition")
        update_node = node.child_by_field_name("update")
        if cond_node is not None and cond_node.type == "call_expression" and callee(cond_node) == "__fc_each":
            return self._foreach(node, cond_node, scope)
        body = loop_body(self, node.child_by_field_name("body"), scope)
        init = None if init_node is None else (
            self.stmt(init_node, scope) if init_node.type == "declaration" else self.expr(init_node, scope).fn)
        cond = self._cond(cond_node, scope) if cond_node is not None else (lambda f: True)
        update, step = self.expr(update_node, scope).fn if update_node is not None else None, self._step(node)
        entry = loop_entry(*induction_of(self, node, body, scope, step))

        def run_for(f: Frame) -> Any:
            if init is not None:
                init(f)
            if same(f) or entry(f) is not ORDINARY:  # one event (spelled alike on both sides), or
                return None  # traced by induction (the loop item holds its iterations)
            while cond(f):
                step(f)
                r = body(f)
                if r is not None and r is not CONTINUE:
                    return None if r is BREAK else r
                if update is not None:
                    update(f)
            return None

        return run_for

    def _foreach(self, node, call, scope):
        args = call.child_by_field_name("arguments").named_children
        macro = self.string_bytes(args[0]).decode("latin-1")
        rest = args[1:]
        iterator = rest[0] if rest else None
        per_cpu = "cpu" in macro
        if iterator is not None and iterator.type == "identifier":
            scope.setdefault(iterator.text.decode("latin-1"), S32 if per_cpu else FREE)
        body = loop_body(self, node.child_by_field_name("body"), scope)
        setter = self.lvalue(iterator, scope)[1] if iterator is not None and iterator.type in (
            "identifier", "field_expression") else None
        key_parts = [self._loop_key_part(a, scope) for a in rest[1:]]
        # further cursor variables (`for_each_vma(vmi, vma)`): locals with no value yet
        cursors = [(j, a.text.decode("latin-1")) for j, a in enumerate(rest[1:], 1)
                   if a.type == "identifier" and a.text.decode("latin-1") in scope]
        step = self._step(node)

        iterator_name = iterator.text.decode("latin-1") if iterator is not None and iterator.type == "identifier" else None

        same = same_loop(self, node, scope, frozenset([iterator_name] if iterator_name else []) | {n for _, n in cursors})

        def run_each(f: Frame) -> Any:
            if same(f):
                return None  # spelled alike on both sides: one event of the state it starts in
            unset = [(j, name) for j, name in cursors if type(f.vars.get(name)) is Unset]
            skip = {j for j, _ in unset}
            others = ",".join("_" if j in skip else part(f) for j, part in enumerate(key_parts, 1))
            loop_key = f"{macro}({others})" if key_parts else macro
            count = f.ctx.inputs.loop_count(loop_key)
            if count is symbolic.SYMBOLIC_LOOP:
                return symbolic_loop(f, loop_key, body, setter, iterator_name, per_cpu, step, types=scope)
            for k in range(count):
                step(f)
                if setter is not None:
                    setter(f, k if per_cpu else Free(f"{loop_key}[{k}]"))
                for j, name in unset:
                    f.vars[name] = Free(f"{loop_key}[{k}]#{j}")
                r = body(f)
                if r is not None and r is not CONTINUE:
                    return None if r is BREAK else r
            return None

        return run_each

    def _stmt_while_statement(self, node, scope):
        cond = self._cond(node.child_by_field_name("condition"), scope)
        body = loop_body(self, node.child_by_field_name("body"), dict(scope))
        step = self._step(node)
        induction = while_walk(self, node, scope, step)
        same = same_loop(self, node, scope)

        def run_while(f: Frame) -> Any:
            if same(f):
                return None  # spelled alike on both sides: one event of the state it starts in
            if induction is not None and getattr(f.ctx.inputs, "symbolic", False) \
                    and induction(f) is not ORDINARY:
                return None  # traced by induction, as `for (; p; p = p->next)` is
            while cond(f):
                step(f)
                r = body(f)
                if r is not None and r is not CONTINUE:
                    return None if r is BREAK else r
            return None

        return run_while

    def _stmt_do_statement(self, node, scope):
        body = loop_body(self, node.child_by_field_name("body"), dict(scope))
        step = self._step(node)
        if (retry := loopshapes.read_section_retry(node.child_by_field_name("condition"))) is not None:
            return read_section(body, step, retry, self.where(node))
        cond = self._cond(node.child_by_field_name("condition"), scope)
        same = same_loop(self, node, scope)

        def run_do(f: Frame) -> Any:
            if same(f):
                return None  # spelled alike on both sides: one event of the state it starts in
            while True:
                step(f)
                r = body(f)
                if r is not None and r is not CONTINUE:
                    return None if r is BREAK else r
                if not cond(f):
                    break
            return None

        return run_do

    def _stmt_break_statement(self, node, scope):
        return lambda f: BREAK

    def _stmt_continue_statement(self, node, scope):
        return lambda f: CONTINUE

    def _stmt_return_statement(self, node, scope):
        if not node.named_children:
            return lambda f: Return(0)
        fn = self.expr(node.named_children[0], scope).fn
        return lambda f: Return(fn(f))

    def _stmt_labeled_statement(self, node, scope):
        inner = [c for c in node.named_children if c.type != "statement_identifier"]
        return self.stmt(inner[0], scope) if inner else None

    def _stmt_goto_statement(self, node, scope):
        signal = Goto(node.child_by_field_name("label").text.decode("latin-1"), self.where(node))
        return lambda f: signal

    def _stmt_switch_statement(self, node, scope):
        return compile_switch(self, node, scope)

    def _stmt_type_definition(self, node, scope):
        return None

    def _stmt_struct_specifier(self, node, scope):
        return None


def call_per_arm(compiler, node, choice, scope):
    """`seq_put_decimal_ull(m, g ? " " : "", x);` as `if (g) ...(m, " ", x); else ...(m, "", x);`:
    C evaluates the condition once and then one arm, so the call is the same; as a row, the
    proof can take it where a branch cannot (in a loop body, on the iteration)."""
    call = node.named_children[0]
    key = (choice.start_byte, choice.end_byte, choice.type)
    arms = []
    for field in ("consequence", "alternative"):
        compiler.expr_overrides[key] = choice.child_by_field_name(field)
        try:
            arms.append(compiler.expr(call, scope).fn)
        finally:
            del compiler.expr_overrides[key]
    cond = compiler._cond(choice.child_by_field_name("condition"), scope, rows=True)
    then, alt = (_as_statement(fn) for fn in arms)
    site = (compiler.label, choice.start_byte)
    where = compiler.where(choice)

    def run_arm(f: Frame) -> Any:
        c = cond(f)
        if c is True:
            then(f)
        elif c is False:
            alt(f)
        else:
            row(f, c, then, alt, site, where)
        return None

    return run_arm


def _as_statement(fn: Callable[[Frame], Any]) -> Callable[[Frame], None]:
    """An expression run as a statement: its value is no control-flow signal."""
    def run(f: Frame) -> None:
        fn(f)
    return run


def _choice_argument(expr):
    """The conditional expression that is an argument of a call statement (the first), or None."""
    if expr.type != "call_expression":
        return None
    args = expr.child_by_field_name("arguments")
    for arg in (args.named_children if args is not None else []):
        inner = arg
        while inner.type == "parenthesized_expression" and inner.named_children:
            inner = inner.named_children[0]
        if inner.type == "conditional_expression" and inner.child_by_field_name("consequence") is not None:
            return inner
    return None


def _array_size_node(decl, name: str):
    """The size expression of array `name` in a declaration."""
    if decl is None:
        return None
    for n in cfront.walk(decl):
        if n.type == "array_declarator" and declarator_name(n) == name:
            return n.child_by_field_name("size")
    return None


def _array_size_text(decl, name: str) -> str | None:
    """The size expression of array `name` in a declaration, as written."""
    size = _array_size_node(decl, name)
    return size.text.decode("latin-1") if size is not None else None


def _runs_to_its_bound(unit, body, names: set[str]) -> bool:
    """`loopshapes.runs_to_its_bound`, asked once per loop and bound of a unit (every rule-6
    rerun compiles the same loops again; a 256-field body is a walk of thousands of nodes)."""
    if body is None:
        return True
    key = ("runs_to_its_bound", body.id, body.start_byte, body.end_byte, frozenset(names))
    if key not in unit.found:
        unit.found[key] = loopshapes.runs_to_its_bound(body, names)
    return unit.found[key]


def indexes_unsized(compiler, body, counter: str, scope: dict) -> bool:
    """Whether BODY indexes with COUNTER an array whose size the code does not give: such a walk
    reads past the array's assumed end at --star-max elements (`expressions.counted_elements`),
    undefined behaviour that skips a case with a larger count, where foreseeing the count past
    the step bound would end it over a bound; so the count is not foreseen for it."""
    for n in cfront.walk(body) if body is not None else ():
        if n.type != "subscript_expression":
            continue
        index, base = n.child_by_field_name("index"), n.child_by_field_name("argument")
        while index is not None and index.type == "parenthesized_expression" and index.named_child_count == 1:
            index = index.named_children[0]
        if index is None or index.type != "identifier" or index.text.decode("latin-1") != counter:
            continue
        try:
            t = compiler.expr(base, scope).type  # (a name the body declares is not in scope yet)
        except FmtcheckError:
            continue
        if not (t[0] == "array" and t[2] is not None):
            return True
    return False


def induction_of(compiler, node, body, scope, step):
    """For a counted loop or a pointer-chain walk (see `fmtcheck.c.loopshapes`): a closure that
    traces it by induction in proof mode, and for a counted loop whose body runs every iteration,
    one that ends a test case at once when the count is past the step bound (else a no-op)."""
    init_node, cond_node, update_node = (node.child_by_field_name(name) for name in ("initializer", "condition", "update"))
    shape, guard = loopshapes.counted(init_node, cond_node, update_node), None
    if shape is None and (found := loopshapes.guarded(init_node, cond_node, update_node)) is not None:
        shape, guard = found[0], compiler.operand_truth(compiler.expr(found[1], scope), True)
    if shape is not None and scope.get(shape.counter, (None,))[0] == "int":
        bound = compiler.expr(shape.bound, scope)
        if bound.type[0] != "int":  # the type the comparison reads the bound in, as `binary` does
            bound = dataclasses.replace(bound, type=compiler.space.hint(bound.text) or U64)
        counter, counter_type, where = shape.counter, scope[shape.counter], compiler.where(node)
        names = loopshapes.names_in(shape.bound) | {counter}
        precheck = _no_precheck
        if guard is not None:
            return (lambda f: guarded_loop(f, counter, counter_type, bound, guard, body, step, scope)), precheck
        if _runs_to_its_bound(compiler.unit, node.child_by_field_name("body"), names) and all(
                scope.get(name, ("ptr",))[0] in ("ptr", "free") for name in names - {counter}) \
                and not indexes_unsized(compiler, node.child_by_field_name("body"), counter, scope):
            def precheck(f: Frame) -> None:
                if all(isinstance(f.vars.get(name), Free) for name in names - {counter}):
                    past_the_step_bound(f, counter, counter_type, bound, where)
        inclusive = shape.inclusive
        return (lambda f: counted_loop(f, counter, counter_type, bound, body, step, inclusive, scope)), precheck
    walk = loopshapes.chain(init_node, cond_node, update_node)
    if walk is not None and walk.cursor in scope:
        return (lambda f: chain_loop(f, walk.cursor, walk.member, body, step, scope)), _no_precheck
    return None, _no_precheck


def same_loop(compiler, node, scope: dict, preassigned: frozenset = frozenset()) -> Callable[[Frame], bool]:
    """A closure that, in a proof run asking for it (`same_loops` on the inputs: see
    `fmtcheck.engine.verdict.Runner.prove`), runs the loop as one event of the state it starts in
    (`fmtcheck.c.sameloops`) and answers True; False when not asked, or the loop does not qualify."""
    outer = dict(scope)
    where = compiler.where(node)
    found: list = []

    def same(f: Frame) -> bool:
        if not getattr(f.ctx.inputs, "same_loops", False):
            return False
        if not found:
            found.append(sameloops.signature(compiler, node, outer, preassigned))
        if found[0] is None:
            return False
        sameloops.event(f, found[0], where)
        return True

    return same


def block_with_labels(compiler, stmts: list, labels: dict[str, int], node) -> Callable[[Frame], Any]:
    """A block holding labels: a goto to one of them continues from there (forward, as in the
    kernel's `goto overflow;`, or backward, under the step bound)."""
    step = compiler._step(node)

    def run(f: Frame) -> Any:
        i = 0
        while i < len(stmts):
            r = stmts[i](f)
            if r is None:
                i += 1
                continue
            if isinstance(r, Goto) and r.label in labels:
                step(f)
                i = labels[r.label]
                continue
            return r
        return None

    return run


def loop_body(compiler, node, scope: dict[str, tuple]) -> Callable[[Frame], Any]:
    """A loop's body: `if (c) continue;` among the body's own statements is the rest of
    the body under !c (`skip_rest`), `if (c) break;` a row in a proof (`break_rest`), in a body
    without labels. The body carries the token its breaks name the loop by (`rows.break_row`)."""
    if node is not None and node.type == "compound_statement":
        token = object()
        block = compiler._compile_block(node, scope, in_loop=token)

        def body(f: Frame) -> Any:
            return block(f)

        body.loop_token = token  # type: ignore[attr-defined]
        return body
    return (compiler.stmt(node, scope) if node is not None else None) or (lambda f: None)

def skip_rest(compiler, node, scope):
    """`if (c) continue; REST` at the top of a loop body, as `if (!c) { REST }`: the same
    run in C (the continue ends the iteration where REST would end), and in a proof a row
    over the iteration, as an `if` with an else arm is, where a `continue` under a condition
    on the iteration was a branch that leaves the loop body early, not provable
    (net/can/bcm.c: `if (!frames_abs) continue;`). REST: the body's statements after it."""
    # the iteration ends here, as after REST: nothing follows in the body
    return _jump_rest(compiler, node, scope, None,
                      lambda f, c, rest, site, where: row(f, c, _nothing, rest, site, where))


def break_rest(compiler, node, scope, token: object):
    """`if (c) break; REST` among a loop body's own statements, as `if (c) break; else { REST }`:
    the same run in C; in a proof, c on an input, `rows.break_row`."""
    return _jump_rest(compiler, node, scope, BREAK,
                      lambda f, c, rest, site, where: break_row(f, c, token, rest, site, where))


def _jump_rest(compiler, node, scope, jumped: Any, on_input: Callable):
    """`if (c) <jump>; REST`: JUMPED (what the body returns) when c holds, REST when it does not,
    and `on_input(f, c, rest, site, where)` for a c on an input in a proof."""
    cond = compiler._cond(node.child_by_field_name("condition"), scope, rows=True)
    site, where = (compiler.label, node.start_byte), compiler.where(node)

    def make(rest: Callable[[Frame], Any]) -> Callable[[Frame], Any]:
        def run_jump(f: Frame) -> Any:
            c = cond(f)
            if c is True:
                return jumped
            if c is False:
                return rest(f)
            return on_input(f, c, rest, site, where)

        return run_jump

    return make


def _jump_if(node, jump: str) -> bool:
    """`if (c) continue;` (or `if (c) { continue; }`, or break: JUMP) with no else."""
    if node.type != "if_statement" or node.child_by_field_name("alternative") is not None:
        return False
    then = node.child_by_field_name("consequence")
    if then is not None and then.type == "compound_statement":
        inner = [c for c in then.named_children if c.type != "comment"]
        then = inner[0] if len(inner) == 1 else None
    return then is not None and then.type == jump


def _with_skips(stmts: list, skips: dict) -> Callable[[Frame], Any]:
    """A loop body's statements with each `if (c) continue;` (None in STMTS, its maker in
    SKIPS) holding the statements after it as its rest, from the last one back."""
    out: list = []
    for index in range(len(stmts) - 1, -1, -1):
        if stmts[index] is None:
            out = [skips[index](in_order(out[::-1]))]
        else:
            out.append(stmts[index])
    return in_order(out[::-1])


def _nothing(f: Frame) -> None:
    return None


def in_order(stmts: list[Callable[[Frame], Any]]) -> Callable[[Frame], Any]:
    """Statements run one after the other until one signals (break, continue, return, goto)."""
    if len(stmts) == 1:
        return stmts[0]

    def run(f: Frame) -> Any:
        for s in stmts:
            r = s(f)
            if r is not None:
                return r
        return None

    return run


def while_walk(compiler, node, scope, step) -> Callable[[Frame], Any] | None:
    """`while (p) { ...; p = p->next; }` in proof mode: the pointer-chain walk of a `for`
    (`rows.chain_loop`) over the body without its last statement, the advance."""
    shape = loopshapes.while_chain(node.child_by_field_name("condition"), node.child_by_field_name("body"))
    if shape is None:
        return _while_advancing(compiler, node, scope, step)
    if shape[0].cursor not in scope:
        return None
    walk, statements = shape
    inner = dict(scope)
    body = in_order([s for s in (compiler.stmt(c, inner) for c in statements) if s is not None])
    return lambda f: chain_loop(f, walk.cursor, walk.member, body, step, scope)


def _while_advancing(compiler, node, scope, step) -> Callable[[Frame], Any] | None:
    """`while ((p = p->next) != NULL) { ... }` in proof mode (/proc/interrupts' action list):
    the test's advance once, then the walk from there (`rows.chain_loop`) over the whole body."""
    shape = loopshapes.while_advancing(node.child_by_field_name("condition"))
    if shape is None or shape[0].cursor not in scope:
        return None
    walk, assignment = shape
    advance = compiler.expr(assignment, scope).fn
    body = loop_body(compiler, node.child_by_field_name("body"), dict(scope))

    def advanced_walk(f: Frame) -> Any:
        if not isinstance(f.vars.get(walk.cursor), Free):
            return ORDINARY  # not over the caller's data: the test runs as C does
        advance(f)
        walked = chain_loop(f, walk.cursor, walk.member, body, step, scope)
        if walked is ORDINARY:
            raise symbolic.NotProvable(f"the walk of {walk.cursor}->{walk.member} left the caller's data")
        return walked

    return advanced_walk


def loop_entry(induction, precheck) -> Callable[[Frame], Any]:
    """What a `for` loop does after its initializer: in proof mode, trace it by induction where
    its shape allows (ORDINARY when not); in testing, the step-bound precheck, then ORDINARY."""
    def entry(f: Frame) -> Any:
        if induction is not None and getattr(f.ctx.inputs, "symbolic", False):
            return induction(f)
        precheck(f)
        return ORDINARY

    return entry


def _no_precheck(f: Frame) -> None:
    return None


def read_section(body: Callable, step: Callable, retry: str, where: str) -> Callable[[Frame], Any]:
    """`do { ... } while (read_seqcount_retry(&s, seq));`: the kernel keeps the last pass, the one
    its retry test passed, and in the model every pass reads the same values (an uninterpreted read
    is a function of its arguments). So the section runs once, and the test is never drawn (a drawn
    `true` would retry forever, to the step bound). That is the last pass only if a pass leaves
    nothing behind for the next: the body runs a second time and must print nothing, store
    nothing and leave every variable as the first pass left it; else the construct is named."""

    def run_section(f: Frame) -> Any:
        step(f)
        r = body(f)
        if r is not None and r is not CONTINUE:
            return None if r is BREAK else r
        ctx = f.ctx
        first, writes, printed = dict(f.vars), ctx.writes, ctx.out.mark()
        step(f)
        r = body(f)
        if (r is not None and r is not CONTINUE) or ctx.writes != writes or ctx.out.mark() != printed \
                or f.vars.keys() != first.keys() \
                or not all(_same_pass_value(first[name], f.vars[name]) for name in first):
            raise Inconclusive(where, f"a read section retried by {retry}() whose body prints, stores, "
                                      "leaves the section or carries a value into its next pass")
        return None

    return run_section


def _same_pass_value(a: Any, b: Any) -> bool:
    """What a variable holds after two passes of a read section, the same as after one."""
    if symbolic.same_value(a, b):
        return True
    if isinstance(a, Free) and isinstance(b, Free):
        return a.key == b.key
    return isinstance(a, bytes) and isinstance(b, bytes) and a == b


def element_bytes(v: Any, elem: tuple, esize: int) -> bytes:
    """V stored as an element of a local integer array. A value of the inputs, in a proof, has
    no bytes to store: the proof stops there and testing decides."""
    if isinstance(v, symbolic.Sym):
        raise symbolic.NotProvable("a local integer array initialised with values of the inputs")
    return (conv(v, (elem[0], elem[1], False)) & ((1 << (8 * esize)) - 1)).to_bytes(esize, "little")
