/*
 * capture.cc: field capture for GCC (docs/code-shape.md section 8,
 * plugin-core capture.h). plugin-core parses a SPEC and resolves it against
 * the declared types, asking the questions of capture_types, which this
 * file answers from GCC's trees; the resolved tree becomes static
 * tf_capture records, whose address the hooks put in tf_value.type of the
 * pointer value it describes. The hooks read nothing through the pointer:
 * libtf does, at event time, through its fault-proof reader.
 */
#include "tf-plugin.h"
#include "hooks.h"

namespace tf {

struct fn_captures {
    std::vector<tree> values; /* per reported value, the tf_capture root or NULL */
    tree result = NULL_TREE;
};

namespace {

unsigned bytes_of(tree type)
{
    tree s = COMPLETE_TYPE_P(type) ? TYPE_SIZE_UNIT(type) : NULL_TREE;
    return s && tree_fits_uhwi_p(s) ? unsigned(tree_to_uhwi(s)) : 0;
}

bool base_field(tree f)
{
    return lang_GNU_CXX() && TF_FIELD_IS_BASE(f);
}

class gcc_types : public core::capture_types {
public:
    core::value_shape shape(core::ctype t) override
    {
        core::value_shape s;
        tree enum_type = NULL_TREE;
        s.kind = value_kind((tree)t, &s.type, &enum_type);
        s.size = bytes_of((tree)t);
        s.enum_type = enum_type;
        return s;
    }
    core::ctype pointee(core::ctype t) override
    {
        tree type = (tree)t;
        if ((TREE_CODE(type) != POINTER_TYPE && TREE_CODE(type) != REFERENCE_TYPE) ||
            FUNC_OR_METHOD_TYPE_P(TREE_TYPE(type)))
            return NULL;
        return TREE_TYPE(type);
    }
    core::ctype array_element(core::ctype t, unsigned &count) override
    {
        tree type = (tree)t, domain = TREE_CODE(type) == ARRAY_TYPE ? TYPE_DOMAIN(type) : NULL_TREE;
        if (!domain || !TYPE_MAX_VALUE(domain) || !tree_fits_shwi_p(TYPE_MAX_VALUE(domain)))
            return NULL;
        count = unsigned(tree_to_shwi(TYPE_MAX_VALUE(domain)) + 1);
        return TREE_TYPE(type);
    }
    bool is_record(core::ctype t) override
    {
        tree type = (tree)t;
        return (TREE_CODE(type) == RECORD_TYPE || TREE_CODE(type) == UNION_TYPE) && COMPLETE_TYPE_P(type) &&
               !(lang_GNU_CXX() && TYPE_LANG_FLAG_2(type)); /* a pointer to member function */
    }
    bool is_void(core::ctype t) override { return VOID_TYPE_P((tree)t); }
    bool is_plain_char(core::ctype t) override { return TYPE_MAIN_VARIANT((tree)t) == char_type_node; }
    bool field(core::ctype record, const std::string &name, core::ctype &type, unsigned &offset,
               bool &bitfield) override
    {
        for (tree f = TYPE_FIELDS((tree)record); f; f = DECL_CHAIN(f)) {
            if (TREE_CODE(f) != FIELD_DECL)
                continue;
            unsigned at = unsigned(int_byte_position(f));
            if ((!DECL_NAME(f) || base_field(f)) && field(TREE_TYPE(f), name, type, offset, bitfield)) {
                offset += at; /* an anonymous member, or a base class */
                return true;
            }
            if (DECL_NAME(f) && !DECL_ARTIFICIAL(f) && name == IDENTIFIER_POINTER(DECL_NAME(f))) {
                type = TREE_TYPE(f);
                offset = at;
                bitfield = DECL_BIT_FIELD_TYPE(f) != NULL_TREE;
                return true;
            }
        }
        return false;
    }
    std::vector<std::string> field_names(core::ctype record) override
    {
        std::vector<std::string> names;
        for (tree f = TYPE_FIELDS((tree)record); f; f = DECL_CHAIN(f)) {
            if (TREE_CODE(f) != FIELD_DECL)
                continue;
            if (!DECL_NAME(f) || base_field(f)) {
                std::vector<std::string> inner = field_names(TREE_TYPE(f));
                names.insert(names.end(), inner.begin(), inner.end());
            } else if (!DECL_ARTIFICIAL(f)) {
                names.push_back(IDENTIFIER_POINTER(DECL_NAME(f)));
            }
        }
        return names;
    }
    std::string spelling(core::ctype t) override { return abi_type_name((tree)t); }
};

/* One tf_capture record (its fields first, as a static array). */
tree emit_node(const core::capture_node &n)
{
    static int count;
    tree type = abi_record("tf_capture");
    std::vector<tree> fields;
    for (const core::capture_node &f : n.fields)
        fields.push_back(emit_node(f));
    tree fields_addr = fields.empty() ? null_pointer_node
                                      : abi_static_array("__tf_capf_" + std::to_string(count++), type, fields);
    tree info = null_pointer_node;
    if (n.shape.enum_type)
        info = abi_enum_descriptor((tree)n.shape.enum_type);
    else if (!n.shape.type.empty())
        info = abi_string(n.shape.type);
    tree u32 = uint32_type_node;
    return abi_ctor(type, {abi_string(n.name), build_int_cst(u32, n.shape.kind), build_int_cst(u32, n.shape.size),
                           build_int_cst(u32, n.offset), build_int_cst(u32, n.flags), info, fields_addr,
                           build_int_cst(u32, n.fields.size()), build_int_cst(integer_type_node, n.length),
                           build_int_cst(u32, n.count), build_int_cst(u32, n.limit)});
}

tree emit_root(const core::capture_node &n)
{
    static int count;
    return abi_static("__tf_cap_" + std::to_string(count++), abi_record("tf_capture"), emit_node(n));
}

const char *capture_attr(tree fn)
{
    tree a = lookup_attribute("tf_capture", DECL_ATTRIBUTES(fn));
    if (!a)
        return NULL;
    tree s = TREE_VALUE(TREE_VALUE(a));
    STRIP_ANY_LOCATION_WRAPPER(s);
    return TREE_CODE(s) == STRING_CST ? TREE_STRING_POINTER(s) : NULL;
}

} // namespace

const fn_captures *capture_resolve(tree fn, const std::string &name, const std::string &file, unsigned at_line)
{
    const call_wrapper *w = call_wrapper_of(fn);
    tree attr_on = w ? w->callee : fn;
    const char *attr = capture_attr(attr_on);
    const core::rules *r = rules_early();
    const core::rules::capture *line = !attr && r ? r->capture_for(file, name) : NULL;
    if (!attr && !line)
        return NULL;
    location_t loc = user_loc(DECL_SOURCE_LOCATION(attr_on));
    core::capture_spec spec;
    unsigned column = 0;
    std::string why;
    /* attrs.cc and rules.cc checked the syntax */
    core::parse_capture_spec(attr ? attr : line->spec, spec, column);
    std::vector<core::capture_root> roots;
    for (const auto &p : reported_params(fn, 0))
        roots.push_back({p.first, DECL_BY_REFERENCE(p.second) ? TREE_TYPE(TREE_TYPE(p.second)) : TREE_TYPE(p.second)});
    tree ret = TREE_TYPE(TREE_TYPE(fn));
    roots.push_back({"return", VOID_TYPE_P(ret) ? NULL : ret});
    gcc_types types;
    std::vector<core::capture_resolved> out;
    why = core::resolve_capture(spec, name, roots, types, out, column);
    if (!why.empty()) {
        if (line)
            error_at(rules_loc(line->line, line->spec_column + column - 1), "tf: rules: capture for %qs: %s",
                     name.c_str(), why.c_str());
        else
            error_at(loc, "tf: %<TF_CAPTURE%> of %qs: %s", name.c_str(), why.c_str());
        return NULL;
    }
    fn_captures *c = new fn_captures;
    c->values.assign(roots.size() - 1, NULL_TREE);
    for (const core::capture_resolved &x : out) {
        tree root = emit_root(x.node);
        gc_keep(root);
        (x.root == roots.size() - 1 ? c->result : c->values[x.root]) = root;
    }
    tu.captures.push_back({name, file, at_line, attr ? attr : line->spec, line ? line->line : 0});
    return c;
}

tree capture_root_for(const fn_captures *c, int i)
{
    if (!c)
        return NULL_TREE;
    if (i < 0)
        return c->result;
    return size_t(i) < c->values.size() ? c->values[size_t(i)] : NULL_TREE;
}

} // namespace tf
