"""The rule API: a rule is a small class with its docs, its examples and libcst visit methods.

Modelled on Fixit 2: the examples inline in each rule are the spec; ``tests/test_rule_examples.py`` turns every one
of them into a test (flagged or not, and the exact source after ``--fix``), and ``jaxlint rule CODE`` prints the docs.

A rule's ``visit_<Node>``/``leave_<Node>`` methods are called by one batched traversal shared by all enabled rules
(returning False does not prune: other rules still see the children). Rules report through ``self.report``; fixes
are described against nodes (``Replace``, ``InsertBefore``...) and turned into text edits by the engine, which only
computes node positions when something was reported.

The rule API sits below what uses it: it knows the file's state only through ``RuleContext`` (implemented by
``jaxlint.lint.context.FileContext``), and imports neither the engine, the context nor the rule registry
(``tests/test_layering.py`` keeps jaxlint's imports free of cycles).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_gate import AstFacts
from jaxlint.lint.diagnostics import Applicability, WithheldFix
from jaxlint.lint.inference import ValueInference
from jaxlint.lint.names import NameResolver
from jaxlint.project.settings import Settings
from jaxlint.lint.text_gate import TextFacts, names_by_last
from jaxlint.project.versions import parse_version



# -- examples ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Example:
    code: str
    # Exact source after ``--fix`` (safe fixes only). None: the finding has no safe fix, the source stays as is.
    fixed: str | None = None
    # Exact source after ``--fix --unsafe-fixes``; None means "same as ``fixed``".
    unsafe_fixed: str | None = None
    min_version: str | None = None
    target_version: str | None = None
    # How many findings of this rule the example must produce (INVALID only).
    count: int = 1
    # Which trap or case this example pins down.
    note: str = ""
    # Whether the example can be executed by the verifier (``jaxlint verify --rules``): self-contained code.
    runnable: bool = False


def dedent(text: str) -> str:
    """``textwrap.dedent(text)``, without its regular expressions: every rule's examples are dedented when the rule
    is imported (800 texts, 6 ms of each one-file check). Lines of spaces and tabs only become empty; the margin is
    the longest prefix of spaces and tabs that every other line starts with; it is cut from each of them."""
    lines = text.split("\n")
    margin: str | None = None
    for index, line in enumerate(lines):
        body = line.lstrip(" \t")
        if not body:
            lines[index] = ""  # blank, or spaces and tabs only
            continue
        indent = line[:len(line) - len(body)]
        if margin is None or margin.startswith(indent):
            margin = indent
        elif not indent.startswith(margin):  # the common prefix (neither is a prefix of the other)
            margin = margin[:next(i for i, (a, b) in enumerate(zip(margin, indent)) if a != b)]
    if margin:
        lines = [line[len(margin):] for line in lines]
    return "\n".join(lines)


def Valid(code: str, **kwargs) -> Example:
    return Example(dedent(code).lstrip("\n"), **kwargs)


def Invalid(code: str, fixed: str | None = None, unsafe_fixed: str | None = None, **kwargs) -> Example:
    def clean(text: str | None) -> str | None:
        return None if text is None else dedent(text).lstrip("\n")

    return Example(clean(code), fixed=clean(fixed), unsafe_fixed=clean(unsafe_fixed), **kwargs)


# -- fixes described against nodes ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Replace:
    node: cst.CSTNode
    content: str


@dataclass(frozen=True)
class InsertBefore:
    node: cst.CSTNode
    content: str


@dataclass(frozen=True)
class InsertAfter:
    node: cst.CSTNode
    content: str


@dataclass(frozen=True)
class InsertAfterLine:
    """Insert ``content`` (whole lines) at the start of the line after the one where ``node`` ends: after its
    trailing comment, before the blank lines and comments that lead the next statement."""

    node: cst.CSTNode
    content: str


@dataclass(frozen=True)
class DeleteStatement:
    """Delete one small statement (``x = 1``, an ``import``...), its line when it stands alone, or leave ``pass``."""

    node: cst.BaseSmallStatement


NodeEdit = Replace | InsertBefore | InsertAfter | InsertAfterLine | DeleteStatement


@dataclass(frozen=True)
class FixSpec:
    applicability: Applicability
    message: str
    edits: Sequence[NodeEdit]
    # The expression whose value the fix must preserve (probed by ``jaxlint verify``); None if there is no value.
    probe: cst.CSTNode | None = None


def safe_fix(message: str, *edits: NodeEdit, probe: cst.CSTNode | None = None) -> FixSpec:
    return FixSpec(Applicability.SAFE, message, edits, probe)


def unsafe_fix(message: str, *edits: NodeEdit, probe: cst.CSTNode | None = None) -> FixSpec:
    return FixSpec(Applicability.UNSAFE, message, edits, probe)


@dataclass
class Report:
    code: str
    node: cst.CSTNode
    message: str
    fix: FixSpec | None
    ancestors: tuple[cst.CSTNode, ...] = field(default=())
    # What follows the one-line message in ``--output-format full`` (None: nothing more to say).
    detail: str | None = None
    # Why no fix is offered where one exists in principle (``diagnostics.WithheldFix``).
    withheld: WithheldFix | None = None


# -- what a rule sees of the file ----------------------------------------------------------------------------
class RuleContext(Protocol):
    """The per-file state a rule reads and reports into (``jaxlint.lint.context.FileContext`` implements it)."""

    module: cst.Module
    source: str
    path: str
    settings: Settings
    resolver: NameResolver
    # The nodes from the module down to the one being visited (the last one is the node itself).
    ancestors: list[cst.CSTNode]

    @property
    def inference(self) -> ValueInference: ...

    @property
    def parent(self) -> cst.CSTNode | None: ...

    def add_report(self, report: Report) -> None: ...


def code_in_place(module: cst.Module, node: cst.CSTNode, ancestors: Sequence[cst.CSTNode]) -> str:
    """``Rule.code_in_place``: ``node``'s code with the indentation of the blocks among ``ancestors``."""
    from libcst._nodes.internal import CodegenState

    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens.extend(_block_indents(module, ancestors))
    node._codegen(state)
    return "".join(state.tokens)


def _block_indents(module: cst.Module, ancestors: Sequence[cst.CSTNode]) -> list[str]:
    """The indentation each block among ``ancestors`` adds (libcst writes a continuation line that ``indent``s
    as these, then its own whitespace)."""
    return [module.default_indent if ancestor.indent is None else ancestor.indent
            for ancestor in ancestors if isinstance(ancestor, cst.IndentedBlock)]


# -- the rule class ------------------------------------------------------------------------------------------
class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    # User documentation in Markdown: what it does, why, example, fix safety, JAX version and exact texts.
    explanation: ClassVar[str]
    # The JAX release in which the breakage happens; the rule runs when the target version is at least this.
    since: ClassVar[str]
    # A rule about another library (the JAX5xx ecosystem rules: flax, optax): its release where the change happened
    # (``flax 0.6.0``), shown instead of ``since``, which is then the oldest JAX (the rule runs at every target).
    library_version: ClassVar[str | None] = None
    # A behaviour change (same code, new result) rather than a removal: silent when the project is known to support
    # only versions that already have the new behaviour (min version known and >= since).
    behaviour_change: ClassVar[bool] = False
    # Opt-in rules run only when selected by their exact code.
    opt_in: ClassVar[bool] = False
    # Rules skip code in compatibility shims (try/except ImportError, hasattr(jax, ...), version checks) unless set.
    check_compat_code: ClassVar[bool] = False
    # Plain-text strings at least one of which every flagged file contains: files without any are never parsed.
    triggers: ClassVar[tuple[str, ...]]
    # Strings of the statements anywhere in the module that a finding or fix depends on (JAX102: "the file also
    # sets this option elsewhere"; JAX401: "the module keeps a pjit"): a large file linted in pieces
    # (``lint.large_files``) gives every piece the statements that contain one.
    whole_module_strings: ClassVar[tuple[str, ...]] = ()
    # Word sets: a file may also match when it contains, as whole words, every word of one of these sets (the
    # catalogue rules: each component of a dotted JAX name). Much more selective than the names' last components.
    required_words: ClassVar[frozenset[frozenset[str]]] = frozenset()
    # The gates (``jaxlint.lint.text_gate``, then ``jaxlint.lint.ast_gate``): qualified names at least one of which every
    # flagged file refers to (through an import, an attribute chain or a name). None: the rule is not gated, every
    # file that passes the word prefilter is parsed with libcst. A rule may refine the tests by overriding
    # ``may_match_text`` and ``may_match_ast``; each must over-approximate what the visit can flag.
    ast_names: ClassVar[frozenset[str] | None] = None
    # ``lint.focus``: every finding lies in a top-level statement that ``may_match_ast`` keeps when asked about that
    # statement alone (with the file's import bindings), and depends on the rest of the module only through the
    # names imports bind (and what rebinds them) and the file's text (``file_text``).
    # Then libcst parses only those statements of a file whose rules all say so (old code: a third less to parse).
    statement_gated: ClassVar[bool] = False
    # The rule's findings never carry a fix and ``findings_from_ast(view)`` computes them from the ast gate's tree
    # (``jaxlint.lint.ast_findings``): a file whose rules all decide so is not parsed with libcst.
    decides_from_ast: ClassVar[bool] = False
    VALID: ClassVar[list[Example]] = []
    INVALID: ClassVar[list[Example]] = []

    def __init__(self, context: RuleContext) -> None:
        self.context = context

    # -- helpers for rule code ---------------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        return self.context.settings

    def qualified_name(self, node: cst.CSTNode) -> str | None:
        return self.context.resolver.qualified_name(node)

    def spelled_from_root(self, node: cst.CSTNode, qualified: str) -> str | None:
        """``qualified`` spelled through the root name of ``node``'s attribute chain, when it lies under what that
        root names (``ox.contrib.dpsgd`` for ``optax.contrib.dpsgd`` in a chain that starts at ``ox`` after
        ``import optax as ox``); None otherwise."""
        root = node
        while isinstance(root, cst.Attribute):
            root = root.value
        root_q = self.qualified_name(root) if isinstance(root, cst.Name) else None
        if root_q and qualified.startswith(root_q + "."):
            return root.value + qualified[len(root_q):]
        return None

    def code_for(self, node: cst.CSTNode) -> str:
        return self.context.module.code_for_node(node)

    def code_in_place(self, node: cst.CSTNode, ancestors: Sequence[cst.CSTNode] | None = None) -> str:
        """``node``'s code as it must be written where it stands: continuation lines keep the enclosing blocks'
        indentation (``Module.code_for_node`` renders a node as if it were at column 0, which drops the indentation
        of the lines of a multi-line call inside a function). ``ancestors``: those of ``node``'s statement (root
        first); by default the current visit's: for a fix's text made of the visited node's parts."""
        return code_in_place(self.context.module, node, self.context.ancestors if ancestors is None else ancestors)

    def block_indent(self) -> str:
        """The indentation of the blocks that hold the node being visited (what a continuation line's own
        whitespace in libcst leaves out)."""
        return "".join(_block_indents(self.context.module, self.context.ancestors))

    def min_version_at_least(self, version: str) -> bool:
        return self.settings.min_version >= parse_version(version)

    def report(self, node: cst.CSTNode, message: str, fix: FixSpec | None = None, detail: str | None = None,
               withheld: WithheldFix | None = None, ancestors: Sequence[cst.CSTNode] | None = None) -> None:
        """``ancestors``: of ``node`` (root first, ending at it) when it is not the node being visited."""
        ancestors = tuple(self.context.ancestors if ancestors is None else ancestors)
        self.context.add_report(Report(self.code, node, message, fix, ancestors, detail, withheld))

    # -- selection ---------------------------------------------------------------------------------------------
    @classmethod
    def applies_to(cls, settings: Settings) -> bool:
        since = parse_version(cls.since)
        if settings.target_version < since:
            return False
        if cls.behaviour_change and settings.min_version_known and settings.min_version >= since:
            return False
        return True

    @classmethod
    def may_report_under(cls, settings: Settings) -> bool:
        """False only where the rule can report nothing with these settings whatever the file holds (JAX601: no row's
        release lies in the project's range). The engine then does not run it on any file; it stays enabled
        (``applies_to``) for what enabled rules mean elsewhere (JAX001 reads a ``# noqa`` of it as unused)."""
        return True

    @classmethod
    def version_label(cls) -> str:
        """What the docs and ``jaxlint rules`` show as the rule's version: ``0.4.20``, or ``flax 0.6.0``."""
        return cls.library_version or cls.since

    @classmethod
    def has_ast_gate(cls) -> bool:
        return cls.ast_names is not None

    @classmethod
    def may_match_text(cls, facts: TextFacts, words: set[str]) -> bool:
        """The text gate (``jaxlint.lint.text_gate``), before the ast gate: False only if no name of ``ast_names`` can
        be referenced (JAX103 refines it with argument counts read from the text)."""
        return cls.ast_names is None or facts.refers_to_any(names_by_last(cls.ast_names), words)

    @classmethod
    def may_match_ast(cls, facts: AstFacts) -> bool:
        """False only if the rule cannot fire on a file with these facts (must over-approximate the visit)."""
        return cls.ast_names is None or facts.refers_to_any(cls.ast_names)

    @classmethod
    def url(cls) -> str | None:
        """Where the rule's documentation is online: nowhere (jaxlint has no public home), so no link; ``jaxlint
        rule CODE`` prints it, and docs/rules.md holds it in the source."""
        return None

