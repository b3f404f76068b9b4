"""JAX102 removed-config-option: settings of JAX config options that no longer exist.

The detection of "a JAX config option is set/read here" (``jax.config.update``, ``jax.config.<flag>``, ``JAX_*``
environment variables set from code, ``compiler_options`` dict keys) lives in ``ConfigAccessRule`` so that JAX303
(expired-export-flag) reuses it.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue import load
from jaxlint.analysis import ast_calls
from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable
from jaxlint.lint.inference import CONFIG, OTHER
from jaxlint.rules.base import (DeleteStatement, FixSpec, Invalid, Replace, Report, Rule, Valid, code_in_place,
                                safe_fix)
from jaxlint.analysis.calls import argument, has_star_args, keyword_arg, literal_value, string_value
from jaxlint.project.versions import Version

# -- the removed flags -------------------------------------------------------------------------------------------
# A small hand-kept table. Another engineer builds a generated catalogue of every removed flag in
# ``rules/``; when it exists and exposes config flags, read this list from it instead.
# ``default``: the value whose setting is a no-op on every version that still had the flag, so deleting it is exact;
# None where the default was not verified (then a setting is never deleted automatically).

_EFFORT_ADVICE = (
    "set `{level}` ('O0' ... 'O3', default {level_default}; from JAX 0.11.1 also `jax.CompilerEffortLevel`) by hand "
    "instead: no exact mapping from the effort float to a level exists"
)
_OPTION_ADVICE = (
    "use the `{option}` compiler option instead (an int such as `39` works on every version; from JAX 0.11.1 also "
    "'O3' or `jax.CompilerEffortLevel.O3`): no exact mapping from the effort float to a level exists"
)


_NO_REPLACEMENT = "the option has no replacement: remove this use"


@dataclass(frozen=True)
class RemovedFlag:
    name: str
    removed: str
    advice: str
    default: float | None = None
    # The per-compilation spelling in ``compiler_options`` and what replaces it, if any.
    compiler_option: str | None = None
    option_advice: str | None = None

    @property
    def env(self) -> str:
        return self.name.upper()


REMOVED_FLAGS: dict[str, RemovedFlag] = {flag.name: flag for flag in (
    RemovedFlag("jax_exec_time_optimization_effort", "0.11.1",
                _EFFORT_ADVICE.format(level="jax_optimization_level", level_default="'UNKNOWN'"), default=0.0,
                compiler_option="exec_time_optimization_effort",
                option_advice=_OPTION_ADVICE.format(option="optimization_level")),
    RemovedFlag("jax_memory_fitting_effort", "0.11.1",
                _EFFORT_ADVICE.format(level="jax_memory_fitting_level", level_default="'O2'"), default=0.0,
                compiler_option="memory_fitting_effort",
                option_advice=_OPTION_ADVICE.format(option="memory_fitting_level")),
    RemovedFlag("jax_refs_to_pins", "0.11.1", _NO_REPLACEMENT),
    RemovedFlag("jax_pallas_use_mosaic_gpu", "0.11.2", _NO_REPLACEMENT),
    RemovedFlag("jax_ragged_dot_use_gpu_pallas_triton_lowering", "0.12.0",
                _NO_REPLACEMENT),
)}
# Every other option the generated catalogue knows as removed (read from each release's config definitions):
# reported from the release that removed it, never deleted automatically (no default was verified for them).
_CATALOGUE_ADVICE = ("the option no longer exists (the JAX changelog of that release says what replaced it, if "
                     "anything): remove or replace this use by hand")
REMOVED_FLAGS.update({entry.name: RemovedFlag(entry.name, entry.removed_in,
                                             entry.note or _CATALOGUE_ADVICE)
                      for entry in load().of_kind("config") if entry.removed_in and entry.name not in REMOVED_FLAGS})
COMPILER_OPTIONS: dict[str, RemovedFlag] = {
    flag.compiler_option: flag for flag in REMOVED_FLAGS.values() if flag.compiler_option}


# -- recognising config access -----------------------------------------------------------------------------------
CONFIG_OBJECTS = frozenset({"jax.config", "jax.config.config", "jax._src.config.config"})
CONFIG_UPDATE = frozenset(f"{obj}.update" for obj in CONFIG_OBJECTS)
ENV_SET_CALLS = frozenset({"os.environ.setdefault", "os.putenv"})
ENV_UPDATE = "os.environ.update"
JIT = frozenset({"jax.jit"})
_ZERO_TEXT = re.compile(r"^[+-]?(0+(\.0*)?|\.0+)$")


@dataclass
class Setting:
    """One place where code touches a config option."""

    kind: str  # "update", "read", "write", "env", "option"
    flag: str  # the config name (``jax_...``), also for env vars and compiler options
    node: cst.CSTNode  # what the finding is reported on
    value: cst.BaseExpression | None  # the value set (None for reads)
    # How to delete the setting: a statement that only does this, or a container element to drop.
    delete_statement: cst.BaseSmallStatement | None = None
    remove_from: cst.CSTNode | None = None  # a Dict or Call holding the entry
    entry: cst.CSTNode | None = None  # the DictElement or Arg to drop
    spelled: str = ""  # the key/variable as written (env var or compiler option name)
    ancestors: tuple[cst.CSTNode, ...] = ()


class ConfigAccessRule(Rule):
    """Finds config settings of the names ``watched(name)`` accepts and hands them to ``on_setting``."""

    def watched(self, flag: str) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def flag_for_env(self, variable: str) -> str | None:
        flag = variable.lower()
        return flag if variable.isupper() and self.watched(flag) else None

    def flag_for_option(self, key: str) -> str | None:
        return None

    def on_setting(self, setting: Setting) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def _emit(self, setting: Setting) -> None:
        setting.ancestors = tuple(self.context.ancestors)
        self.on_setting(setting)

    def _standalone_statement(self, node: cst.CSTNode) -> cst.BaseSmallStatement | None:
        """The small statement that consists of ``node`` alone (an expression statement), if it is one."""
        ancestors = self.context.ancestors
        if len(ancestors) < 3 or ancestors[-1] is not node:
            return None
        statement, line = ancestors[-2], ancestors[-3]
        if isinstance(statement, cst.Expr) and statement.value is node \
                and isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return statement
        return None

    # -- jax.config.update / reads / writes / env calls / compiler_options --------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.qualified_name(node.func)
        if qualified in CONFIG_UPDATE:
            self._config_update(node)
        elif qualified is None and isinstance(node.func, cst.Attribute) and node.func.attr.value == "update":
            self._config_update(node, through_alias=True)
        elif qualified in ENV_SET_CALLS:
            self._env_call(node)
        elif qualified == ENV_UPDATE:
            self._env_update(node)
        elif qualified in JIT:
            self._compiler_options(node, argument(node, "compiler_options", None))
        elif qualified == "functools.partial" and node.args and not node.args[0].keyword \
                and self.qualified_name(node.args[0].value) in JIT:
            self._compiler_options(node, keyword_arg(node, "compiler_options"))
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "compile":
            receiver = node.func.value
            lowered = isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute) \
                and receiver.func.attr.value == "lower"
            if not lowered and self.context.inference.kind_of(receiver) == OTHER:
                return  # the project's own ``compile`` (``self.compile(compiler_options=...)``)
            self._compiler_options(node, argument(node, "compiler_options", 0 if lowered else None))

    def _config_update(self, node: cst.Call, through_alias: bool = False) -> None:
        if has_star_args(node):
            return
        name_arg, value_arg = argument(node, "name", 0), argument(node, "val", 1)
        name = string_value(name_arg.value) if name_arg is not None else None
        if name is None or not self.watched(name):
            return
        # ``cfg.update(...)``: only where the inference knows ``cfg`` holds ``jax.config`` (``cfg = jax.config``).
        if through_alias and self.context.inference.kind_of(node.func.value) != CONFIG:
            return
        self._emit(Setting("update", name, node, value_arg.value if value_arg else None,
                           delete_statement=self._standalone_statement(node)))

    def _env_call(self, node: cst.Call) -> None:
        if has_star_args(node) or len(node.args) < 2:
            return
        variable = string_value(node.args[0].value)
        flag = self.flag_for_env(variable) if variable else None
        if flag is None:
            return
        self._emit(Setting("env", flag, node, node.args[1].value, spelled=variable,
                           delete_statement=self._standalone_statement(node)))

    def _env_update(self, node: cst.Call) -> None:
        statement = self._standalone_statement(node)
        if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star \
                and isinstance(node.args[0].value, cst.Dict):
            mapping = node.args[0].value
            for element in mapping.elements:
                if not isinstance(element, cst.DictElement):
                    continue
                variable = string_value(element.key)
                flag = self.flag_for_env(variable) if variable else None
                if flag is None:
                    continue
                only = len(mapping.elements) == 1
                self._emit(Setting("env", flag, element.key, element.value, spelled=variable,
                                   delete_statement=statement if only else None,
                                   remove_from=None if only else mapping, entry=element))
            return
        for arg in node.args:
            if arg.keyword is None or arg.star:
                continue
            flag = self.flag_for_env(arg.keyword.value)
            if flag is None:
                continue
            only = len(node.args) == 1
            self._emit(Setting("env", flag, arg.keyword, arg.value, spelled=arg.keyword.value,
                               delete_statement=statement if only else None,
                               remove_from=None if only else node, entry=arg))

    def _compiler_options(self, call: cst.Call, options: cst.Arg | None) -> None:
        if options is None:
            return
        value = options.value
        if isinstance(value, cst.Name):
            value = self._single_dict_binding(value)  # follow ``opts = {...}``; never fixed through a name
            fixable = False
        else:
            fixable = True
        if isinstance(value, cst.Dict):
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    key = string_value(element.key)
                    flag = self.flag_for_option(key) if key else None
                    if flag is not None:
                        self._emit(Setting("option", flag, element.key, element.value, spelled=key,
                                           remove_from=value if fixable else None, entry=element))
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
                and self.context.resolver.is_builtin(value.func, "dict") and not has_star_args(value):
            for arg in value.args:
                flag = self.flag_for_option(arg.keyword.value) if arg.keyword else None
                if flag is not None:
                    self._emit(Setting("option", flag, arg.keyword, arg.value, spelled=arg.keyword.value,
                                       remove_from=value if fixable else None, entry=arg))

    def _single_dict_binding(self, name: cst.Name) -> cst.BaseExpression | None:
        bindings = self.context.resolver.bindings(name)
        if len(bindings) != 1:
            return None
        node = bindings[0].node
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            return node.value
        return None

    # -- jax.config.<flag> reads and writes ---------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        flag = node.attr.value
        if not self.watched(flag):
            return
        if self.qualified_name(node.value) not in CONFIG_OBJECTS \
                and self.context.inference.kind_of(node.value) != CONFIG:
            return
        parent = self.context.parent
        if isinstance(parent, cst.AssignTarget) and parent.target is node:
            assign = self.context.ancestors[-3]
            single = isinstance(assign, cst.Assign) and len(assign.targets) == 1
            self._emit(Setting("write", flag, node, assign.value if single else None,
                               delete_statement=assign if single else None))
        elif isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
            self._emit(Setting("write", flag, node, None))
        else:
            self._emit(Setting("read", flag, node, None))

    # -- os.environ["JAX_..."] = ... ----------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            subscript = target.target
            if not isinstance(subscript, cst.Subscript) or len(subscript.slice) != 1 \
                    or self.qualified_name(subscript.value) != "os.environ":
                continue
            index = subscript.slice[0].slice
            variable = string_value(index.value) if isinstance(index, cst.Index) else None
            flag = self.flag_for_env(variable) if variable else None
            if flag is None:
                continue
            self._emit(Setting("env", flag, subscript, node.value, spelled=variable,
                               delete_statement=node if len(node.targets) == 1 else None))


# -- the same settings on ``ast`` (``findings_from_ast`` of JAX102 and JAX303) --------------------------------------
@dataclass
class AstSetting:
    """A ``Setting`` as ``AstConfigAccess`` finds it: no fix is built from it (JAX102 leaves a setting it could
    delete to libcst)."""

    kind: str
    flag: str
    node: ast.AST  # the node libcst reports (its span is the finding's)
    value: ast.AST | None
    spelled: str = ""


class AstConfigAccess:
    """``ConfigAccessRule``'s visit on the ``ast`` tree: the settings it hands ``on_setting``, of the kinds in
    ``wanted``, with ``AstNames`` for qualified names and ``AstValueKinds`` for the receivers the inference reads
    (``Undecidable`` where only libcst's inference follows one). ``rule``: an instance of the rule (its ``watched``,
    ``flag_for_env`` and ``flag_for_option`` under the file's settings). ``Undecidable`` too where libcst reports a
    keyword's name (``os.environ.update(JAX_X=...)``, ``compiler_options=dict(option=...)``: ``ast`` has no node
    for it) and for compiler options passed through a name (the visit follows its one binding)."""

    def __init__(self, view: AstView, rule: ConfigAccessRule, wanted: frozenset[str]) -> None:
        from jaxlint.analysis.ast_value_kinds import AstValueKinds  # the inference's port, only for files that set

        self.view = view
        self.rule = rule
        self.wanted = wanted
        self.names = view.names()
        self.kinds = AstValueKinds(view)

    def settings(self) -> list[AstSetting]:
        found: list[AstSetting] = []
        for node in self.view.nodes_of((ast.Call, ast.Attribute, ast.Assign)):
            kind = type(node)
            if kind is ast.Call:
                found += self._call(node)
            elif kind is ast.Attribute:
                found += self._attribute(node)
            else:
                found += self._environ_item(node)
        return [setting for setting in found if setting.kind in self.wanted]

    # -- ``visit_Call`` --------------------------------------------------------------------------------------------
    def _call(self, node: ast.Call) -> list[AstSetting]:
        func = node.func
        qualified = self.names.qualified_name(func)
        if qualified in CONFIG_UPDATE:
            return self._config_update(node)
        if qualified is None and type(func) is ast.Attribute and func.attr == "update":
            return self._config_update(node, through_alias=True)
        if qualified in ENV_SET_CALLS:
            return self._env_call(node)
        if qualified == ENV_UPDATE:
            return self._env_update(node)
        if "option" not in self.wanted:
            return []
        if qualified in JIT:
            return self._compiler_options(ast_calls.argument(node, "compiler_options", None))
        if qualified == "functools.partial":
            arguments = ast_calls.arguments_in_order(node)
            if arguments and type(arguments[0]) not in (ast.keyword, ast.Starred) \
                    and self.names.qualified_name(arguments[0]) in JIT:
                return self._compiler_options(ast_calls.argument(node, "compiler_options", None))
            return []
        if type(func) is ast.Attribute and func.attr == "compile":
            receiver = func.value
            lowered = type(receiver) is ast.Call and type(receiver.func) is ast.Attribute \
                and receiver.func.attr == "lower"
            found = self._compiler_options(ast_calls.argument(node, "compiler_options", 0 if lowered else None))
            # the visit reads the receiver's kind first: the project's own ``compile`` (``self.compile(...)``)
            if found and not lowered and self.kinds.kind_of(receiver) == OTHER:
                return []
            return found
        return []

    def _config_update(self, node: ast.Call, through_alias: bool = False) -> list[AstSetting]:
        if ast_calls.has_star_args(node):
            return []
        name = ast_calls.string_value(ast_calls.argument(node, "name", 0))
        if name is None or not self.rule.watched(name):
            return []
        # ``cfg.update(...)``: only where the inference knows ``cfg`` holds ``jax.config``
        if through_alias and self.kinds.kind_of(node.func.value) != CONFIG:
            return []
        return [AstSetting("update", name, node, ast_calls.argument(node, "val", 1))]

    def _env_call(self, node: ast.Call) -> list[AstSetting]:
        arguments = ast_calls.arguments_in_order(node)
        if ast_calls.has_star_args(node) or len(arguments) < 2:
            return []
        variable = ast_calls.string_value(ast_calls.argument_value(arguments[0]))
        flag = self.rule.flag_for_env(variable) if variable else None
        if flag is None:
            return []
        return [AstSetting("env", flag, node, ast_calls.argument_value(arguments[1]), variable)]

    def _env_update(self, node: ast.Call) -> list[AstSetting]:
        if len(node.args) == 1 and not node.keywords and type(node.args[0]) is ast.Dict:
            return _keyed_settings("env", node.args[0], self.rule.flag_for_env)
        if any(keyword.arg and self.rule.flag_for_env(keyword.arg) for keyword in node.keywords):
            raise Undecidable("a variable passed by keyword: libcst reports the keyword's name")
        return []

    def _compiler_options(self, options: ast.AST | None) -> list[AstSetting]:
        if options is None:
            return []
        if type(options) is ast.Name:
            if any(self.rule.flag_for_option(text) for text in _strings(self.view.nodes)):
                raise Undecidable("compiler options through a name: the visit follows its binding")
            return []
        if type(options) is ast.Dict:
            return _keyed_settings("option", options, self.rule.flag_for_option)
        if type(options) is ast.Call and any(keyword.arg and self.rule.flag_for_option(keyword.arg)
                                             for keyword in options.keywords):
            raise Undecidable("a compiler option passed by keyword: libcst reports the keyword's name")
        return []

    # -- ``visit_Attribute``: ``jax.config.<flag>`` read or written -------------------------------------------------
    def _attribute(self, node: ast.Attribute) -> list[AstSetting]:
        flag = node.attr
        if not self.rule.watched(flag):
            return []
        parent, field = self.view.parent(node)
        if type(parent) is ast.Assign and field == "targets":
            kind, value = "write", parent.value if len(parent.targets) == 1 else None
        elif type(parent) in (ast.AugAssign, ast.AnnAssign) and field == "target":
            kind, value = "write", None
        else:
            kind, value = "read", None
        if kind not in self.wanted:
            return []  # (before the receiver's kind: the inference may not follow it)
        if self.names.qualified_name(node.value) not in CONFIG_OBJECTS and self.kinds.kind_of(node.value) != CONFIG:
            return []
        return [AstSetting(kind, flag, node, value)]

    # -- ``visit_Assign``: ``os.environ["JAX_..."] = value`` ----------------------------------------------------------
    def _environ_item(self, node: ast.Assign) -> list[AstSetting]:
        found = []
        for target in node.targets:
            if type(target) is not ast.Subscript or type(target.slice) in (ast.Tuple, ast.Slice) \
                    or self.names.qualified_name(target.value) != "os.environ":
                continue
            variable = ast_calls.string_value(target.slice)
            flag = self.rule.flag_for_env(variable) if variable else None
            if flag is not None:
                found.append(AstSetting("env", flag, target, node.value, variable))
        return found


def _keyed_settings(kind: str, mapping: ast.Dict, flag_for) -> list[AstSetting]:
    """The settings of a dict literal whose string keys ``flag_for`` reads as options (an environment variable's
    name, a compiler option's): ``**other`` and other keys are passed over, as the visit passes them over."""
    found = []
    for key, value in zip(mapping.keys, mapping.values):
        text = ast_calls.string_value(key)
        flag = flag_for(text) if text else None
        if flag is not None:
            found.append(AstSetting(kind, flag, key, value, text))
    return found


def _strings(nodes):
    for node in nodes:
        if type(node) is ast.Constant and type(node.value) is str:
            yield node.value


def drop_entry(container: cst.CSTNode, entry: cst.CSTNode, module: cst.Module,
               ancestors: Sequence[cst.CSTNode] = ()) -> str:
    """The source of a Dict (or Call) without one element (or argument), keeping the layout of the rest
    (``ancestors``: of the statement that holds it, whose blocks indent its continuation lines)."""
    items = list(container.elements if isinstance(container, cst.Dict) else container.args)
    position = next(i for i, item in enumerate(items) if item is entry)
    if position == len(items) - 1 and position > 0:
        # The previous item takes over the dropped one's comma (trailing comma and line break stay as written).
        items[position - 1] = items[position - 1].with_changes(comma=entry.comma)
    del items[position]
    if isinstance(container, cst.Dict):
        changed = container.with_changes(elements=items) if items else \
            container.with_changes(elements=[], lbrace=cst.LeftCurlyBrace(), rbrace=cst.RightCurlyBrace())
    else:
        changed = container.with_changes(args=items)
    return code_in_place(module, changed, ancestors)


def is_zero_literal(value: cst.BaseExpression | None, module: cst.Module, *, env: bool) -> bool:
    """``0`` / ``0.0`` (or, for an environment variable, the string "0" / "0.0")."""
    if value is None:
        return False
    if env:
        text = string_value(value)
        return text is not None and bool(_ZERO_TEXT.match(text))
    if not isinstance(value, (cst.Integer, cst.Float, cst.UnaryOperation)):
        return False
    try:
        number = literal_value(value, module)
    except (ValueError, SyntaxError):
        return False
    return type(number) in (int, float) and number == 0


def _spellings(nodes):
    """The strings, attribute names and keywords among ``nodes``: where a setting spells its option."""
    for node in nodes:
        text = _spelling(node)
        if text:
            yield text


def _spelling(node: ast.AST) -> str | None:
    """A non-empty string's text, an attribute's name or a keyword's name; None for any other node."""
    kind = type(node)
    if kind is ast.Constant:
        return node.value if type(node.value) is str else None
    if kind is ast.Attribute:
        return node.attr
    if kind is ast.keyword:
        return node.arg
    return None


def _string_may_set(view: AstView, node: ast.Constant) -> bool:
    """Whether the visit may read a string as an option (``ConfigAccessRule``): a call's first argument (a
    ``config.update`` name, an environment variable set by a call), a ``name=`` keyword's value, a dict's key (an
    ``os.environ.update`` or ``compiler_options`` dict, also through a name) or the index of a subscript that is
    stored to (``os.environ[...] = ...``); a key or index only as an environment variable (``flag_for_env``: ``JAX``
    in capitals) or a compiler option. Not an element of a list or tuple (``namedtuple("Obs", ["jax_array"])``), a
    later argument (``getattr(FLAGS, "jax_test_dut")``), a subscript read (``obs["jax_array"]``) or a dict's key
    that is a flag's own name (``{"jax_array": x}``)."""
    parent, field = view.parent(node)
    kind = type(parent)
    text = node.value
    variable = _jax_variable(text)
    if kind is ast.Call:
        return field == "args" and parent.args[0] is node
    if kind is ast.keyword:
        return parent.arg == "name"
    if kind is ast.Dict:
        return field == "keys" and (variable or text in COMPILER_OPTIONS)
    if kind is ast.Subscript:
        return field == "slice" and type(parent.ctx) is not ast.Load and variable
    return kind not in (ast.List, ast.Tuple, ast.Set, ast.Compare, ast.JoinedStr, ast.FormattedValue, ast.Expr)


def _keyword_may_set(keyword: str | None) -> bool:
    """Whether the visit may take a keyword's name for an option: only ``os.environ.update(JAX_...=...)``
    (``RemovedConfigOption.flag_for_env``: a ``JAX`` variable in capitals) and ``compiler_options=dict(...)``
    (``flag_for_option``) read one. A bare option's name (``shard_map(..., check_rep=False)``) is never a setting:
    the call's own argument. The target version is not asked (a removal after the target: still ``True``)."""
    if not keyword:
        return False
    return keyword in COMPILER_OPTIONS or (_jax_variable(keyword) and keyword.lower() in REMOVED_FLAGS)


def _jax_variable(text: str) -> bool:
    """A ``JAX`` environment variable's spelling (``RemovedConfigOption.flag_for_env``: in capitals)."""
    return text.startswith("JAX") and text.isupper()


_EVERY_KIND = frozenset({"update", "read", "write", "env", "option"})


# -- the rule ------------------------------------------------------------------------------------------------------
class RemovedConfigOption(ConfigAccessRule):
    code = "JAX102"
    name = "removed-config-option"
    summary = "a JAX config option, its environment variable or compiler option that no longer exists"
    since = min((flag.removed for flag in REMOVED_FLAGS.values()), key=Version)
    # Every use spells the whole option name (``"jax_array"``, ``jax.config.jax_array``), its environment variable
    # (``JAX_ARRAY``) or its compiler option: a stripped ``array`` would let nearly every file through the prefilter.
    triggers = tuple(sorted({
        text
        for flag in REMOVED_FLAGS.values()
        for text in (flag.name, flag.env, flag.compiler_option)
        if text
    }))
    whole_module_strings = triggers  # a value set elsewhere in the file decides the fix
    _spelled = frozenset(triggers)

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        # A trigger as a whole word only: every setting the visit reports spells the exact option name (a string,
        # an attribute, a keyword, an environment variable), while ``def _make_jax_array`` holds ``jax_array`` too.
        return not words.isdisjoint(cls.triggers)

    # A file that spells no option where a setting spells it has no finding (``findings_from_ast``).
    decides_from_ast = True

    @classmethod
    def has_ast_gate(cls) -> bool:
        return True  # ``may_match_ast`` reads the tree; the engine then decides on it

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        """Every setting names its flag as a string, an attribute or a keyword (``_spellings``)."""
        whole = facts.file or facts  # its nodes: the tree's, as the gate's walk recorded them
        return whole.tree is None or any(text in cls._spelled for text in _spellings(whole.nodes))

    @classmethod
    def findings_from_ast(cls, view: AstView) -> list:
        """The visit's findings from the ``ast`` tree (``AstConfigAccess``): none where no string, attribute or
        keyword is spelled as an option, its environment variable or its compiler option (every ``Setting`` names
        its flag in one of these), or where the only such spellings are keywords no setting reads
        (``_keyword_may_set``) and strings where no setting reads one (``_string_may_set``). ``Undecidable`` for a
        setting of an option whose default is known (the visit may delete it: a fix libcst writes)."""
        if not any(cls._may_set(view, node) for node in view.nodes):
            return []
        rule = view.rule(cls)
        findings = []
        for setting in AstConfigAccess(view, rule, _EVERY_KIND).settings():
            flag = REMOVED_FLAGS[setting.flag]
            if flag.default is not None and setting.kind != "read":
                raise Undecidable("a setting of an option whose default is known: maybe a deletion")
            advice = (flag.option_advice if setting.kind == "option" else None) or flag.advice
            findings.append(AstFinding(cls.code, setting.node, rule._message(setting, flag, advice)))
        return findings

    @classmethod
    def _may_set(cls, view: AstView, node: ast.AST) -> bool:
        """Whether ``node`` spells an option where a setting may spell it."""
        text = _spelling(node)
        if not text or type(node) is ast.keyword and not _keyword_may_set(text):
            return False
        # ``flag_for_env`` reads ``variable.lower()``: a variable spelled otherwise but lowering to a flag
        return (text in cls._spelled or text.lower() in REMOVED_FLAGS) \
            and (type(node) is not ast.Constant or _string_may_set(view, node))

    explanation = """
## What it does
Finds JAX config options that were removed, wherever code uses them: `jax.config.update("<flag>", ...)` (however
`jax.config` is imported, and through a name the value inference knows holds it: `cfg = jax.config` in a function
or at module level, `self.cfg = jax.config`), `jax.config.<flag>` reads and writes, the `JAX_<FLAG>` environment variable set from code
(`os.environ[...] = ...`, `os.environ.setdefault`, `os.environ.update`, `os.putenv`), and the per-compilation
`compiler_options` keys `exec_time_optimization_effort` / `memory_fitting_effort` in `jax.jit(...)`,
`functools.partial(jax.jit, ...)` and `.lower(...).compile(...)` (`x.compile(compiler_options=...)` on any
receiver of unknown type too, but not on one known to be the project's own object, such as `self` in a class of the
module: that `compile` is the project's).

| option | removed in |
|---|---|
| `jax_exec_time_optimization_effort`, `jax_memory_fitting_effort` | 0.11.1 |
| `jax_refs_to_pins` | 0.11.1 |
| `jax_pallas_use_mosaic_gpu` | 0.11.2 |
| `jax_ragged_dot_use_gpu_pallas_triton_lowering` | 0.12.0 |
| `mosaic_use_cpp_passes`, `mosaic_on_device_checks` | 0.4.24, 0.4.26 |
| `experimental_xmap_spmd_lowering`, `..._manual`, `experimental_xmap_ensure_fixed_sharding` | 0.4.31 |
| `mock_num_processes` (now `mock_num_gpu_processes`) | 0.4.32 |
| `check_rep` (now `check_vma`), `mosaic_use_python_pipeline` | 0.6.1 |
| `allow_ragged_dot_tpu_explicit_transpose` | 0.10.1 |
| every other option the generated catalogue lists as removed (`jax_enable_memories`, `jax_dynamic_shapes`, ...; `jaxlint rule JAX102` lists them) | its release |

An option is reported when the target version is at least the release that removed it. The options without the
`jax_` prefix (hand rows in `rules/overlay.toml`: the generator reads only `jax*` names) are reported in
`jax.config.update(...)` and `jax.config.<option>`, not as environment variables (`CHECK_REP` is more likely the
project's own variable).

## Why
From the removing release on (checked on JAX 0.11.1 and 0.12.0.1 for the effort flags):
- `jax.config.update('jax_exec_time_optimization_effort', 0.5)` raises
  `AttributeError: Unrecognized config option: jax_exec_time_optimization_effort` (the same code path for every
  removed option);
- reading `jax.config.jax_exec_time_optimization_effort` raises
  `AttributeError: 'Config' object has no attribute 'jax_exec_time_optimization_effort'`;
- the environment variable `JAX_EXEC_TIME_OPTIMIZATION_EFFORT` is **silently ignored**;
- `compiler_options={'exec_time_optimization_effort': 0.5}` (or `memory_fitting_effort`) fails at compile time with
  `JaxRuntimeError: INVALID_ARGUMENT: No such compile option: 'exec_time_optimization_effort'`.

The effort floats (default 0.0, range [-1.0, 1.0]) are replaced by the levels `jax_optimization_level` and
`jax_memory_fitting_level` (values `'UNKNOWN'`, `'O0'` ... `'O3'`; defaults `'UNKNOWN'` / `'O2'`; present since
0.10.2), and the `compiler_options` keys `optimization_level` / `memory_fitting_level` (an int such as `39` works
on every version; `'O3'` and `jax.CompilerEffortLevel.O3` from 0.11.1; `jax.CompilerEffortLevel`: `UNKNOWN=0`,
`O0=9`, `O1=19`, `O2=29`, `O3=39`). **No exact mapping from a float to a level exists**: JAX 0.10.2 passed the
float and the level to XLA as two independent options (XLA GPU, for instance, enables its latency-hiding
scheduler and collective pipeliner for `exec_time_optimization_effort >= 0.2`), so choose a level by hand.

## Example
```python
jax.config.update("jax_exec_time_optimization_effort", 0.0)
jax.config.update("jax_memory_fitting_effort", 0.5)
f = jax.jit(g, compiler_options={"exec_time_optimization_effort": 0.0, "xla_cpu_enable_fast_math": False})
```
`--fix` gives:
```python
jax.config.update("jax_memory_fitting_effort", 0.5)  # still reported: choose jax_memory_fitting_level by hand
f = jax.jit(g, compiler_options={"xla_cpu_enable_fast_math": False})
```

## Fix safety
Safe, and only where it is exact: a setting to the default `0` / `0.0` (`"0"` / `"0.0"` for the environment
variable) of an effort flag is a no-op on every version that still had the flag, so the statement is deleted
when it does nothing else (a `pass` is left where a block would become empty), and a `compiler_options` or
`os.environ.update` entry is removed from its dict. Not fixed: any other value, a value that is not a literal, a
dict reached through a variable, options whose default was not verified (`jax_refs_to_pins`, ...), reads, and a
default setting in a file that also sets the same option to another value (there the default setting may be
resetting it on the old JAX, so deleting it would change behaviour there).

## JAX version
0.11.1 (effort flags and `jax_refs_to_pins`; JAX commit 3f6b59a677, not in the changelog), 0.11.2
(`jax_pallas_use_mosaic_gpu`), 0.12.0 (`jax_ragged_dot_use_gpu_pallas_triton_lowering`).
"""

    VALID = [
        Valid("""
            import jax
            jax.config.update("jax_optimization_level", "O3")
            jax.config.update("jax_enable_x64", True)
        """, note="existing options"),
        Valid("""
            import jax
            jax.config.update("jax_exec_time_optimization_effort", 0.5)
        """, target_version="0.11.0", note="target before the removal"),
        Valid("""
            import jax
            jax.config.update("jax_enable_memories", True)
        """, target_version="0.5.0", note="catalogue option, target before its removal (0.5.1)"),
        Valid("""
            import jax
            jax.config.update("jax_pallas_use_mosaic_gpu", True)
        """, target_version="0.11.1", note="removed only in 0.11.2"),
        Valid("""
            import jax
            jax.config.update("jax_ragged_dot_use_gpu_pallas_triton_lowering", True)
        """, target_version="0.11.2", note="removed only in 0.12.0"),
        Valid("""
            import jax
            if jax.__version_info__ < (0, 11, 1):
                jax.config.update("jax_exec_time_optimization_effort", 0.5)
        """, note="compat code behind a version check"),
        Valid("""
            import jax
            try:
                jax.config.update("jax_memory_fitting_effort", 0.5)
            except AttributeError:
                jax.config.update("jax_memory_fitting_level", "O3")
        """, note="compat code in try/except AttributeError"),
        Valid("""
            import jax
            if hasattr(jax.config, "jax_exec_time_optimization_effort"):
                jax.config.jax_exec_time_optimization_effort
        """, note="compat code behind hasattr(jax.config, ...)"),
        Valid("""
            class Config:
                def update(self, name, value): ...
            config = Config()
            config.update("jax_exec_time_optimization_effort", 0.5)
        """, note="a project's own config object"),
        Valid("""
            from absl import flags
            flags.FLAGS.jax_exec_time_optimization_effort
        """, note="not jax.config"),
        Valid("""
            import os
            os.environ["JAX_OPTIMIZATION_LEVEL"] = "O3"
            value = os.environ.get("JAX_EXEC_TIME_OPTIMIZATION_EFFORT")
            os.environ["jax_exec_time_optimization_effort"] = "0.5"
        """, note="an existing option; reading the variable; a lower-case variable name is not JAX's"),
        Valid("""
            import jax
            f = jax.jit(g, compiler_options={"optimization_level": 39})
            compiled = jax.jit(g).lower(x).compile({"xla_cpu_enable_fast_math": False})
        """, note="existing compiler options"),
        Valid("""
            import jax

            class Compiler:
                def compile(self, fn, compiler_options=None):
                    return fn

                def build(self, fn):
                    return self.compile(fn, compiler_options={"exec_time_optimization_effort": 0.5})
        """, note="the project's own compile method called on self"),
        Valid("""
            import jax
            settings = {}
            settings.update("jax_exec_time_optimization_effort", 0.5)
            def configure(cfg):
                cfg.update("jax_memory_fitting_effort", 0.5)
        """, note="update on a dict and on a parameter of unknown type"),
        Valid("""
            import re
            options = {"exec_time_optimization_effort": 0.5}
            pattern = re.compile("x")
            send(options)
        """, note="a dict that never reaches a JAX compilation"),
        Valid("""
            from jax import *
            config.update("jax_enable_x64", True)
        """, note="star import, an existing option"),
        Valid("""
            import jax
            def jax_exec_time_optimization_effort():
                return 0.5
            jax.config.update(jax_exec_time_optimization_effort(), 0.5)
        """, note="the option name is not a literal: nothing to say for sure"),
        Valid("""
            import os
            import jax
            os.environ["CHECK_REP"] = "1"
            flags = {}
            flags.update(check_rep=True)
            jax.config.update("check_vma", True)
        """, note="a bare option's name as an environment variable or elsewhere: the project's own"),
        Valid("""
            import jax
            jax.config.update("experimental_xmap_spmd_lowering", True)
        """, target_version="0.4.30", note="a bare option, target before its removal"),
    ]

    INVALID = [
        Invalid("""
            import jax
            jax.config.update("experimental_xmap_spmd_lowering", True)
            jax.config.update("check_rep", False)
            jax.config.update("mock_num_processes", 2)
        """, count=3, note="options JAX defined without the `jax_` prefix (removed in 0.4.31, 0.6.1, 0.4.32)"),
        Invalid("""
            from jax import config
            if config.experimental_xmap_spmd_lowering_manual:
                pass
        """, note="reading a bare option"),
        Invalid("""
            import jax
            jax.config.update("jax_enable_memories", True)
        """, note="an option only the catalogue knows (removed in 0.5.1): reported, no fix"),
        Invalid("""
            import os
            os.environ["JAX_DYNAMIC_SHAPES"] = "1"
        """, note="catalogue option through its environment variable"),
        Invalid("""
            import jax
            jax.config.update("jax_exec_time_optimization_effort", 0.0)
            jax.config.update("jax_enable_x64", True)
        """, fixed="""
            import jax
            jax.config.update("jax_enable_x64", True)
        """, min_version="0.10.2", note="default value: delete the statement"),
        Invalid("""
            import jax
            jax.config.update("jax_exec_time_optimization_effort", 0.5)
        """, note="non-default value: no fix, point to jax_optimization_level"),
        Invalid("""
            from jax import config
            config.update("jax_memory_fitting_effort", 0)
        """, fixed="""
            from jax import config
        """, note="from jax import config; the int 0"),
        Invalid("""
            from jax import config as cfg
            cfg.update("jax_memory_fitting_effort", -0.25)
        """, note="aliased config object, negative value"),
        Invalid("""
            import jax.config
            jax.config.update(name="jax_exec_time_optimization_effort", val=0.0)
        """, fixed="""
            import jax.config
        """, note="import jax.config; keyword arguments"),
        Invalid("""
            from jax.config import config
            config.update("jax_exec_time_optimization_effort", 1.0)
        """, note="old spelling from jax.config import config"),
        Invalid("""
            import jax
            def setup():
                jax.config.update("jax_exec_time_optimization_effort", 0.0)
        """, fixed="""
            import jax
            def setup():
                pass
        """, note="the only statement of a block leaves pass"),
        Invalid("""
            import jax
            jax.config.update("jax_exec_time_optimization_effort", 0.0); x = 1
        """, fixed="""
            import jax
            x = 1
        """, note="statement on a line with another"),
        Invalid("""
            import jax
            ok = jax.config.update("jax_exec_time_optimization_effort", 0.0)
        """, note="not a statement of its own: no fix"),
        Invalid("""
            import jax
            jax.config.update("jax_exec_time_optimization_effort", 0.5)
            run()
            jax.config.update("jax_exec_time_optimization_effort", 0.0)
        """, count=2, note="resetting after another value: deleting the reset would change old JAX"),
        Invalid("""
            import jax
            jax.config.update("jax_exec_time_optimization_effort", effort)
        """, note="value not a literal"),
        Invalid("""
            import jax
            effort = jax.config.jax_exec_time_optimization_effort
        """, note="attribute read"),
        Invalid("""
            import jax
            jax.config.jax_memory_fitting_effort = 0.5
        """, note="attribute write"),
        Invalid("""
            import jax
            jax.config.update("jax_refs_to_pins", False)
        """, note="another removed option (0.11.1), default not verified: no fix"),
        Invalid("""
            from jax import config
            config.update("jax_pallas_use_mosaic_gpu", True)
        """, target_version="0.11.2", note="removed in 0.11.2"),
        Invalid("""
            import jax
            jax.config.update("jax_ragged_dot_use_gpu_pallas_triton_lowering", True)
        """, note="removed in 0.12.0 (default target 0.12.0.1)"),
        Invalid("""
            import os
            os.environ["JAX_EXEC_TIME_OPTIMIZATION_EFFORT"] = "0.0"
            import jax
        """, fixed="""
            import os
            import jax
        """, note="environment variable set to the default"),
        Invalid("""
            import os
            os.environ["JAX_EXEC_TIME_OPTIMIZATION_EFFORT"] = "0.5"
        """, note="environment variable now silently ignored"),
        Invalid("""
            from os import environ
            environ.setdefault("JAX_MEMORY_FITTING_EFFORT", "0")
        """, fixed="""
            from os import environ
        """, note="from os import environ; setdefault"),
        Invalid("""
            import os
            os.putenv("JAX_MEMORY_FITTING_EFFORT", "1")
        """, note="os.putenv"),
        Invalid("""
            import os
            os.environ.update({"JAX_MEMORY_FITTING_EFFORT": "0.0", "XLA_FLAGS": "--xla_dump_to=/tmp"})
        """, fixed="""
            import os
            os.environ.update({"XLA_FLAGS": "--xla_dump_to=/tmp"})
        """, note="os.environ.update: drop just the entry"),
        Invalid("""
            import os
            os.environ.update(JAX_EXEC_TIME_OPTIMIZATION_EFFORT="0")
        """, fixed="""
            import os
        """, note="os.environ.update with the only keyword: delete the statement"),
        Invalid("""
            import jax
            f = jax.jit(g, compiler_options={"exec_time_optimization_effort": 0.0, "xla_cpu_enable_fast_math": False})
        """, fixed="""
            import jax
            f = jax.jit(g, compiler_options={"xla_cpu_enable_fast_math": False})
        """, note="compiler_options entry with the default: drop the entry"),
        Invalid("""
            import jax
            f = jax.jit(
                g,
                compiler_options={
                    "xla_cpu_enable_fast_math": False,
                    "memory_fitting_effort": 0.0,
                },
            )
        """, fixed="""
            import jax
            f = jax.jit(
                g,
                compiler_options={
                    "xla_cpu_enable_fast_math": False,
                },
            )
        """, note="last entry of a multi-line dict keeps the trailing comma"),
        Invalid("""
            import jax
            compiled = jax.jit(g).lower(x).compile({"exec_time_optimization_effort": 0})
        """, fixed="""
            import jax
            compiled = jax.jit(g).lower(x).compile({})
        """, note=".lower(...).compile(dict) positionally"),
        Invalid("""
            import jax
            lowered = jax.jit(g).lower(x)
            compiled = lowered.compile(compiler_options={"exec_time_optimization_effort": 0.5})
        """, note=".compile(compiler_options=...) on a lowered object"),
        Invalid("""
            import functools
            import jax
            @functools.partial(jax.jit, compiler_options=dict(memory_fitting_effort=0.0, other=1))
            def f(x):
                return x
        """, fixed="""
            import functools
            import jax
            @functools.partial(jax.jit, compiler_options=dict(other=1))
            def f(x):
                return x
        """, note="functools.partial(jax.jit, ...) with dict(...)"),
        Invalid("""
            import jax
            options = {"exec_time_optimization_effort": 0.0}
            f = jax.jit(g, compiler_options=options)
        """, note="dict reached through a name: reported, not fixed"),
        Invalid("""
            import jax
            cfg = jax.config
            cfg.update("jax_exec_time_optimization_effort", 0.0)
        """, fixed="""
            import jax
            cfg = jax.config
        """, note="jax.config bound to another name at module level"),
        Invalid("""
            import jax

            def setup():
                config = jax.config
                config.update("jax_memory_fitting_effort", 0.5)
                return config.jax_refs_to_pins
        """, count=2, note="an alias in a function: update and read"),
        Invalid("""
            import jax

            class Runner:
                def __init__(self):
                    self.cfg = jax.config

                def tune(self):
                    self.cfg.update("jax_exec_time_optimization_effort", 0.5)
        """, note="jax.config kept in self.cfg"),
        Invalid("""
            import jax
            jax.config.update("jax_exec_time_optimization_effort", 0.0)
        """, fixed="""
            import jax
        """, target_version="0.11.1", note="target exactly the removal release"),
    ]

    # -- collection and deferred reporting ---------------------------------------------------------------------
    def __init__(self, context) -> None:
        super().__init__(context)
        self._settings: list[Setting] = []

    def watched(self, flag: str) -> bool:
        removed = REMOVED_FLAGS.get(flag)
        return removed is not None and self.settings.target_version >= Version(removed.removed)

    def flag_for_env(self, variable: str) -> str | None:
        # A bare option (``check_rep``) reads ``CHECK_REP`` too, but a variable of that name in a project is far
        # more often the project's own: only ``JAX``-prefixed variables are taken as JAX's.
        return super().flag_for_env(variable) if variable.startswith("JAX") else None

    def flag_for_option(self, key: str) -> str | None:
        removed = COMPILER_OPTIONS.get(key)
        return removed.name if removed is not None and self.watched(removed.name) else None

    def on_setting(self, setting: Setting) -> None:
        self._settings.append(setting)

    def leave_Module(self, node: cst.Module) -> None:
        module = self.context.module
        # A flag set to anything but the default somewhere in the file: its default settings may be resets.
        contested = {s.flag for s in self._settings
                     if s.kind != "read" and not is_zero_literal(s.value, module, env=s.kind == "env")}
        for setting in self._settings:
            flag = REMOVED_FLAGS[setting.flag]
            advice = (flag.option_advice if setting.kind == "option" else None) or flag.advice
            fix = None
            if flag.default is not None and setting.kind in ("update", "env", "option", "write") \
                    and is_zero_literal(setting.value, module, env=setting.kind == "env"):
                value = self.code_for(setting.value).strip()
                fix = self._deletion(setting, contested) if setting.kind != "write" else None
                if setting.flag in contested:
                    advice = (f"{value} is the default, but this file also sets the option to another value, so "
                              f"this may be a reset: remove all of them and {advice}")
                elif fix is not None:
                    advice = f"{value} is the default, so the setting does nothing: delete it"
                else:
                    advice = f"{value} is the default, so the setting does nothing: remove it by hand"
            message = self._message(setting, flag, advice)
            self.context.add_report(Report(self.code, setting.node, message, fix, setting.ancestors))

    def _deletion(self, setting: Setting, contested: set[str]) -> FixSpec | None:
        if setting.flag in contested:
            return None
        if setting.remove_from is not None and setting.entry is not None:
            return safe_fix("Remove the entry (the value is the default)",
                            Replace(setting.remove_from, drop_entry(setting.remove_from, setting.entry,
                                                                    self.context.module, setting.ancestors)))
        if setting.delete_statement is not None:
            return safe_fix("Delete the statement (the value is the default)",
                            DeleteStatement(setting.delete_statement))
        return None

    def _message(self, setting: Setting, flag: RemovedFlag, advice: str) -> str:
        name, removed = flag.name, flag.removed
        if setting.kind == "update":
            return (f"config option `{name}` was removed in JAX {removed}: `jax.config.update` raises "
                    f"`AttributeError: Unrecognized config option: {name}`; {advice}")
        if setting.kind == "read":
            return (f"`jax.config.{name}` was removed in JAX {removed} (`AttributeError: 'Config' object has no "
                    f"attribute '{name}'`); {advice}")
        if setting.kind == "write":
            return f"assigning `jax.config.{name}` has no effect: the option was removed in JAX {removed}; {advice}"
        if setting.kind == "env":
            return (f"environment variable `{setting.spelled}` is silently ignored since JAX {removed} "
                    f"(`{name}` was removed); {advice}")
        return (f"compiler option `{setting.spelled}` was removed in JAX {removed}: compiling raises "
                f"`JaxRuntimeError: INVALID_ARGUMENT: No such compile option: '{setting.spelled}'`; {advice}")
