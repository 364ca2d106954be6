"""The compiled program of one side: tree-sitter C compiled to Python closures.

Each function body is compiled once into nested closures, then run many times, once per input
vector: this is what lets the engine render tens of thousands of inputs per second through both
sides. `Program` holds what is common (functions, parameters, declared types, globals); the
compilation of statements, expressions, operators and calls lives in one mixin each
(`statements`, `expressions`, `operators`, `calls`). C integer semantics are in `types` and
`arith`, run-time values in `values`, the kernel's own functions in `fmtcheck.kernel`.

What the code does not define is an input shared by both sides:
- a free variable or struct member path (`stats->rx_bytes`, `mss.pss`) is an input keyed by its
  path; pointers returned by calls the input does not define are keyed by the call, so both sides
  see the same value for the same call;
- an uninterpreted call is a pure function of its name and argument values; if it receives the
  seq_file, it is an opaque output event that both sides must make in the same order;
- an undefined upper-case constant comes from `fmtcheck.kernel.constants` or is an input;
- a `for_each_*` loop runs an input-chosen number of times.

The same closures run on `fmtcheck.c.symbolic.Sym` values in proof mode.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c import cfront, headers
from fmtcheck.c.calls import CallCompiler
from fmtcheck.c.formatting import FormattingCompiler
from fmtcheck.c.expressions import ExpressionCompiler
from fmtcheck.c.hints import InputSpace
from fmtcheck.c.nodes import declarator_name, object_is_const, seq_file_names
from fmtcheck.c.operators import OperatorCompiler
from fmtcheck.c.reuse import StatementReuse
from fmtcheck.c.statements import StatementCompiler
from fmtcheck.c.tables import DataCompiler
from fmtcheck.c.symbolic import Sym
from fmtcheck.c.types import BASE_TYPES, FREE, S32, S64, U64, conv
from fmtcheck.c.values import MAX_CALL_DEPTH, Context, Frame, Free, Goto, LocalStruct, Mem, Return, Table, convert_arg
from fmtcheck.common.errors import Inconclusive, InputError, LimitExceeded
from fmtcheck.kernel.primitives import PRIMITIVES


class Program(StatementCompiler, DataCompiler, ExpressionCompiler, OperatorCompiler, CallCompiler,
              FormattingCompiler):
    """The compiled functions of one side."""

    def __init__(self, unit: cfront.Unit, space: InputSpace, label: str, tree: str | None = None) -> None:
        self.unit = unit
        self.tree = tree
        self.label = label
        self.seq_names = seq_file_names(unit)
        self.own_primitives = sorted(name for name in unit.functions if name in PRIMITIVES)
        # what runs note into the Program: cleared, never replaced, by judge_in (closures kept
        # across judgements hold these very objects)
        self.global_values: dict[str, list[Any]] = {}  # per global: [the run's context, its value]
        # input key -> {the type it was read as ('struct st', 'a 32-bit integer') -> where}: the
        # engine checks that both sides read the caller's data through the same types
        self.read_types: dict[str, dict[str, str]] = {}
        self.reuse = StatementReuse()  # printing statements kept across rule-6 judgements
        self.judge_in(space)

    def judge_in(self, space: InputSpace) -> None:
        """Start compiling the side (again) in SPACE: a rule-6 judgement of the pair with other
        types for its undeclared operands (fmtcheck.engine.assumed) compiles it anew in the same
        Program, which keeps only the statements fmtcheck.c.reuse shows the same in every one."""
        self.reuse.begin()
        self.space = space
        self._header_constants: dict[str, tuple[int, tuple]] | None = None
        self._header_strings: dict[str, bytes] | None = None
        self._header_returns: dict[str, tuple] | None = None
        self._typedefs: dict[str, Any] | None = None  # typedef name -> type (or a header's words)
        self.compiled: dict[str, Callable] = {}
        self.signatures: dict[str, list[tuple[str, tuple]]] = {}
        self.globals: dict[str, tuple[Callable[[Frame], Any], tuple]] = {}
        self.global_values.clear()
        self.read_types.clear()
        # node (start, end, type) -> the node compiled in its place (a call's choice argument, one arm
        # at a time: see StatementCompiler._stmt_expression_statement)
        self.expr_overrides: dict[tuple[int, int, str], Any] = {}
        self.unmodelled: dict[str, Inconclusive] = {}
        self.current_decl = None  # the declaration being compiled (for locations)
        self.unknown_size: dict[str, str] = {}  # arrays sized by an expression the model cannot fold
        self.enums: dict[str, int] = {}
        self._compile_enums()
        self.unfolded_size: str | None = None  # the size text of the array being declared, when unfolded
        self.kernel_state: set[str] = set()  # file-scope variables whose value is the kernel's state
        self.prototypes: dict[str, tuple] = {}  # function declared, not defined -> its return type
        self.filled_state: set[str] = set()  # pointers (arrays of them) of the kernel's state the file sets
        self.struct_members: dict[str, dict[str, tuple]] = {}  # struct -> member -> type (file's definition)
        self._tree_structs: dict[str, bytes] | None = None  # with --tree: the headers' struct texts
        self.header_structs: dict[str, Any] = {}  # struct -> its parsed header members (DataCompiler)
        for decl in self.unit.globals:
            with self.reuse.folding(space):
                self._compile_global(decl)

    # -- locations ------------------------------------------------------------------------
    def where(self, node) -> str:
        if node is None:
            node = self.current_decl
        if node is None:
            return self.unit.where
        # asked ~10 times per statement compiled (each expression names its place): by the
        # node's first byte, which fixes its line, once per unit (rule-6 reruns compile it again)
        lines = self.unit.found.get("where")
        if lines is None:
            lines = self.unit.found["where"] = {}
        start = node.start_byte
        where = lines.get(start)
        if where is None:
            where = lines[start] = f"{self.unit.where}:{self.unit.user_line(node)}"
        return where

    def line(self, node) -> int:
        return self.unit.user_line(node)

    def unsupported(self, node, what: str) -> Inconclusive:
        return Inconclusive(self.where(node), what)

    # -- functions ------------------------------------------------------------------------
    def function(self, name: str) -> Callable:
        if name in self.compiled:
            return self.compiled[name]
        node = self.unit.functions.get(name)
        if node is None:
            raise KeyError(name)
        err = cfront.syntax_error_in(node, self.unit)
        if err:
            raise InputError(f"{self.unit.where}:{err[0]}", f"C syntax error near '{err[1]}'")
        placeholder: list[Callable] = []

        def trampoline(ctx: Context, args: list[Any]) -> Any:
            return placeholder[0](ctx, args)

        self.compiled[name] = trampoline
        params = self._params(node)
        self.signatures[name] = params
        body = self._compile_block(node.child_by_field_name("body"), dict(params))
        ret_type = self._declared_type(node, node.child_by_field_name("declarator"))

        def call(ctx: Context, args: list[Any]) -> Any:
            if ctx.depth >= MAX_CALL_DEPTH:
                raise LimitExceeded(self.where(node), f"recursion deeper than {MAX_CALL_DEPTH} calls")
            frame = Frame(ctx)
            for (pname, ptype), value in zip(params, args):
                frame.vars[pname] = convert_arg(value, ptype)
            ctx.depth += 1
            try:
                signal = body(frame)
            finally:
                ctx.depth -= 1
            if isinstance(signal, Goto):
                raise Inconclusive(signal.where, f"goto {signal.label}: no such label in an enclosing block")
            if isinstance(signal, Return):
                value = signal.value
                return conv(value, ret_type) if ret_type[0] == "int" and isinstance(value, (int, Sym)) else value
            return 0

        placeholder.append(call)
        return trampoline

    def _params(self, node) -> list[tuple[str, tuple]]:
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        out: list[tuple[str, tuple]] = []
        if decl is None:
            return out
        plist = decl.child_by_field_name("parameters")
        for p in plist.named_children if plist is not None else []:
            if p.type != "parameter_declaration":
                continue
            d = p.child_by_field_name("declarator")
            if d is None:
                continue
            name = declarator_name(d)
            if name:
                out.append((name, self._declared_type(p, d)))
        return out

    # -- types ----------------------------------------------------------------------------
    def _base_type(self, type_node) -> tuple:
        if type_node is None:
            return S32
        text = " ".join(type_node.text.decode("latin-1").split())
        if type_node.type == "struct_specifier":
            name = type_node.child_by_field_name("name")
            if text.startswith("struct seq_file") or (name is not None and name.text == b"seq_file"):
                return ("struct", "seq_file")
            return ("struct", name.text.decode("latin-1") if name is not None else "?")
        if type_node.type in ("enum_specifier",):
            return S32
        if text in BASE_TYPES:
            return BASE_TYPES[text]
        if text.startswith("unsigned ") and "long" in text:
            return U64
        if "long" in text:
            return U64 if "unsigned" in text else S64
        if type_node.type == "type_identifier":
            return self.typedef(text) or FREE
        return FREE

    def typedef(self, name: str, depth: int = 0) -> tuple | None:
        """The type a typedef name stands for: the file's `typedef unsigned int t_key;` (or
        `typedef struct foo foo_t;`), else (with `--tree`) the one plain typedef the headers the
        file includes give it, through other typedefs (`__be32` -> `__u32`); None when neither
        defines it once."""
        if self._typedefs is None:
            self._typedefs = self._file_typedefs()
            if self.tree is not None:
                for n, words in headers.tree_typedefs(self.tree, self.unit.where, self.unit.source.includes).items():
                    self._typedefs.setdefault(n, words)
        found = self._typedefs.get(name)
        if isinstance(found, str):
            found = BASE_TYPES.get(found) or (self.typedef(found, depth + 1) if depth < 8 and " " not in found else None)
        return found

    def _file_typedefs(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for node in self.unit.tree.root_node.children:
            if node.type != "type_definition" or node.child_by_field_name("type") is None:
                continue
            for d in node.children_by_field_name("declarator"):
                if d.type != "type_identifier":
                    continue  # a pointer, an array or a function type: not read here
                t = self._base_type(node.child_by_field_name("type"))
                if t != FREE and t != ("struct", "?"):
                    out[d.text.decode("latin-1")] = t
        return out

    def _declared_type(self, decl_node, declarator) -> tuple:
        base = self._base_type(decl_node.child_by_field_name("type"))
        t = base
        d = declarator
        while d is not None:
            if d.type in ("pointer_declarator", "abstract_pointer_declarator"):
                t = ("ptr", t)
            elif d.type in ("array_declarator", "abstract_array_declarator"):
                size = d.child_by_field_name("size")
                n = None
                if size is not None:
                    n = self._const_int(size)
                t = ("array", t, n)
            elif d.type == "function_declarator":
                pass
            if d.type in ("identifier", "field_identifier"):
                break
            d = d.child_by_field_name("declarator")
        return t

    def overridden(self, node):
        """The node compiled in place of `node` (see `Program.expr_overrides`), or itself."""
        if not self.expr_overrides:
            return node
        return self.expr_overrides.get((node.start_byte, node.end_byte, node.type), node)

    def _const_int(self, node) -> int | None:
        try:
            with self.reuse.folding(self.space):  # kept in a type or an enumerator
                e = self.expr(node, {})
        except Inconclusive:
            return None
        if e.const is not None and isinstance(e.const, int):
            return e.const
        return None

    # -- enum constants -------------------------------------------------------------------
    def header_constant(self, name: str) -> tuple[int, tuple] | None:
        """With `--tree`: the value the headers the file includes give `name` (read once)."""
        if self.tree is None:
            return None
        if self._header_constants is None:
            self._header_constants = headers.tree_constants(self.tree, self.unit.where, self.unit.source.includes)
        return self._header_constants.get(name)

    def header_string(self, name: str) -> bytes | None:
        """With `--tree`: the string a header the file includes defines `name` as."""
        if self.tree is None:
            return None
        if self._header_strings is None:
            self._header_strings = headers.tree_strings(self.tree, self.unit.where, self.unit.source.includes)
        return self._header_strings.get(name)

    def return_type(self, name: str) -> tuple | None:
        """The integer type a call of NAME, which the input does not define, returns: from the
        file's prototype, else (with `--tree`) from the headers the file includes."""
        if name in self.prototypes:
            return self.prototypes[name]
        if self.tree is None:
            return None
        if self._header_returns is None:
            self._header_returns = headers.tree_return_types(self.tree, self.unit.where, self.unit.source.includes)
        return self._header_returns.get(name)

    def _compile_enums(self) -> None:
        """The enumerators the input defines are the constants they are (`enum { A, B = 4, C }`:
        0, 4, 5), never inputs: a counterexample that sets one would not be realizable. One whose
        value does not fold (`X = SOME_MACRO`), and the implicit ones after it, stay undefined
        names like an undefined macro."""
        for node in self.unit.nodes_of(self.unit.tree.root_node, ("enumerator_list",)):
            nxt: int | None = 0
            for item in node.named_children:
                if item.type != "enumerator":
                    continue
                name = item.child_by_field_name("name").text.decode("latin-1")
                value = item.child_by_field_name("value")
                v = self._const_int(value) if value is not None else nxt
                if v is not None:
                    self.enums.setdefault(name, v)
                nxt = v + 1 if v is not None else None

    # -- globals --------------------------------------------------------------------------
    def global_setter(self, name: str) -> tuple[tuple, Callable[[Frame, Any], None]]:
        """An assignment to a file-scope variable (a helper's `flush_next_time = jiffies_64 + ...`,
        mm/memcontrol.c): the run's value of it from then on, which every later read sees (see
        `read_global`). It counts as a store: a branch on an input whose arm assigns one is run
        both ways, not traced as a row, and a loop body traced by induction may not."""
        t = self.globals[name][1]
        cache = self.global_values.setdefault(name, [])

        def set_global(f: Frame, v: Any) -> None:
            f.ctx.writes += 1
            cache[:] = [f.ctx, v]

        return t, set_global

    def constant_name(self, name: str) -> str | None:
        """How an uninterpreted call that receives the file-scope object NAME names it, when no
        function of the file writes it: by its name and a digest of its declaration and of the
        declarations of the globals it names, all the way down (a side that initialises it, or a
        table it points at, otherwise passes another value); None for an object the file may
        write (`names_written`) unless it is const."""
        declarations = global_declarations(self.unit)
        if name not in declarations or name in names_written(self.unit) and not object_is_const(*declarations[name]):
            return None  # (a const object is never written: doing so is undefined behaviour)
        seen: dict[str, bytes] = {}
        todo = [name]
        while todo:
            current = todo.pop()
            if current in seen or current not in declarations:
                continue
            decl = declarations[current][0]
            seen[current] = b" ".join(decl.text.split())
            todo += [n.text.decode("latin-1") for n in cfront.walk(decl) if n.type == "identifier"]
        import hashlib  # (on first use: its OpenSSL binding costs ~2.5 ms of start-up)
        digest = hashlib.sha256(b"\n".join(seen[k] for k in sorted(seen))).hexdigest()[:12]
        return f"&{name}#{digest}"

    def _compile_global(self, decl) -> None:
        for child in decl.children:
            if child.type not in ("init_declarator", "identifier", "array_declarator", "pointer_declarator",
                                  "function_declarator"):
                continue
            d = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
            name = declarator_name(d)
            if name and declares_function(d):
                # a prototype (`static struct foo *get_foo(int);`): no variable, but the type of
                # what the calls of it return
                self.prototypes.setdefault(name, self._declared_type(decl, d))
                continue
            if not name:
                continue
            t = self._declared_type(decl, d)
            init = child.child_by_field_name("value") if child.type == "init_declarator" else None
            self.note_unfolded_size(decl, name, t)
            self.current_decl = decl
            if is_kernel_state(decl, d, t, init):
                # whatever the file initialised it to, other code changes it before the printer
                # runs: an input by name, and no difference may hang on its value (engine.sharing)
                self.kernel_state.add(name)
                if (t[0] == "ptr" or t[0] == "array" and t[1][0] == "ptr") and name in pointers_set(self.unit):
                    self.filled_state.add(name)
                self.globals[name] = (file_scope(state_reader(name, t), name), t)
                continue
            if init is None and t == FREE:
                # `DEFINE_PER_CPU_SHARED_ALIGNED(irq_cpustat_t, irq_stat)` of a type the input does
                # not define: the kernel's data, by name on both sides (never one side's stack)
                self.globals[name] = (file_scope(lambda f, name=name: Free(name), name), t)
                continue
            if init is None and t[0] == "struct" and t[1] != "seq_file":
                self.globals[name] = (file_scope(lambda f, name=name: LocalStruct(name), name), t)  # by name
                continue
            try:
                if t[0] == "array" and t[2] is None and init is not None and init.type == "initializer_list":
                    t = ("array", t[1], self._initializer_count(init))
                self.globals[name] = (file_scope(self._initializer(t, init, {}, name), name,
                                                 self.constant_name(name)), t)
            except Inconclusive as err:
                self.unmodelled[name] = err


def pointers_set(unit: cfront.Unit) -> set[str]:
    """Names the file's functions assign something other than NULL or 0 (`qos_head = entry;`,
    `resolved[hash] = a;`):
    a pointer of the kernel's state so set does point at data when a printer runs, so a
    difference that needs it to is realizable (engine.sharing). Cached on the unit."""
    cached = getattr(unit, "pointers_set_cache", None)
    if cached is not None:
        return cached
    names: set[str] = set()
    for fn in unit.functions.values():
        for n in cfront.walk(fn):
            if n.type != "assignment_expression" or n.child_by_field_name("operator").type != "=":
                continue
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left.type == "subscript_expression":  # `resolved[hash] = a;`: an array of them
                left = left.child_by_field_name("argument")
            if left.type == "identifier" and right.text.strip() not in (b"NULL", b"0", b"(void *)0"):
                names.add(left.text.decode("latin-1"))
    unit.pointers_set_cache = names
    return names


def declares_function(declarator) -> bool:
    """Whether a declarator declares a function (`*get_foo(int i)`), not a pointer variable; a
    pointer to a function (`(*show)(...)`) is a variable."""
    d = declarator
    while d is not None and d.type in ("pointer_declarator", "array_declarator"):
        d = d.child_by_field_name("declarator")
    return d is not None and d.type == "function_declarator"


def is_kernel_state(decl, declarator, t: tuple, init) -> bool:
    """A file-scope variable the code may change at run time: not const, and a number, a
    pointer, or an array of them that the file does not initialise (an initialised table keeps
    its contents: the kernel's tables are read-only in practice, and a table taken as free data
    would make divergent a rewrite that relies on its strings)."""
    if object_is_const(decl, declarator):
        return False
    if t[0] in ("int", "ptr"):
        return True
    return t[0] == "array" and init is None and t[1][0] in ("int", "ptr")


def state_reader(name: str, t: tuple) -> Callable[[Frame], Any]:
    """The kernel's state by name: a number of its declared type, else the data it points at."""
    if t[0] == "int":
        return lambda f: f.ctx.inputs.int_input(name, t)
    return lambda f: Free(name)


def names_written(unit: cfront.Unit) -> set[str]:
    """The names the file's functions may write: the root name of every target they assign,
    increment or take apart to assign (`x = `, `x.f = `, `x[i].f += `, `x++`), and every name
    whose address (or array) may reach code that writes through it: an argument of a function the
    file defines or of a copying builtin (`reset(&cfg)`, `memset(&cfg, ...)`), or a value stored in
    a pointer (`p = &cfg`). Cached on the unit."""
    cached = getattr(unit, "names_written_cache", None)
    if cached is not None:
        return cached
    names: set[str] = set()
    for fn in unit.functions.values():
        for n in cfront.walk(fn):
            targets = []
            if n.type == "assignment_expression":
                targets = [n.child_by_field_name("left"), n.child_by_field_name("right")]
            elif n.type == "update_expression":
                targets = [n.child_by_field_name("argument")]
            elif n.type == "init_declarator":
                targets = [n.child_by_field_name("value")]
            elif n.type == "call_expression" and n.child_by_field_name("function").text.decode("latin-1") in (
                    set(unit.functions) | _WRITING_BUILTINS):
                targets = list(n.child_by_field_name("arguments").named_children)
            for target in targets:
                while target is not None and target.type in ("field_expression", "subscript_expression",
                                                             "parenthesized_expression", "pointer_expression",
                                                             "cast_expression"):
                    target = target.child_by_field_name("argument") or target.child_by_field_name("value") \
                        or (target.named_children or [None])[-1]
                if target is not None and target.type == "identifier":
                    names.add(target.text.decode("latin-1"))
    unit.names_written_cache = names
    return names


_WRITING_BUILTINS = {"memset", "memcpy", "memmove", "strcpy", "strscpy", "strlcpy", "strncpy", "sprintf",
                     "snprintf", "scnprintf", "strcat", "strlcat"}


def global_declarations(unit: cfront.Unit) -> dict[str, Any]:
    """File-scope name -> (declaration, declarator) that declares it (the last one). Cached."""
    cached = getattr(unit, "global_declarations_cache", None)
    if cached is None:
        cached = {}
        for decl in unit.globals:
            for child in decl.children:
                if child.type in ("init_declarator", "identifier", "array_declarator", "pointer_declarator"):
                    name = declarator_name(child.child_by_field_name("declarator") if child.type == "init_declarator"
                                           else child)
                    if name:
                        cached[name] = (decl, child.child_by_field_name("declarator")
                                        if child.type == "init_declarator" else child)
        unit.global_declarations_cache = cached
    return cached


def file_scope(make: Callable[[Frame], Any], name: str, constant: str | None = None) -> Callable[[Frame], Any]:
    """A global's maker: the object it makes is marked as the file's `name`, which the caller's
    pointers may point at (a comparison with one is an input, not "never equal"), and a struct or
    table carries its `Program.constant_name` CONSTANT, if any."""

    def make_global(f: Frame) -> Any:
        value = make(f)
        if isinstance(value, (LocalStruct, Mem)):
            value.file_scope = name
        if constant is not None and isinstance(value, (LocalStruct, Table)):
            value.constant_name = constant
        return value

    return make_global
