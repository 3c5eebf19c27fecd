/*
 * bodysize.cc: a function body's size as plugin-core/size.h defines it,
 * counted on GENERIC as the front end hands it over (PLUGIN_PRE_GENERICIZE):
 * the body as written, before gimplification adds temporaries, the closest
 * GCC has to the AST clang-pass/bodysize.cpp counts the same things on.
 * Front-end tree codes (C++'s if_stmt, the c-family loops) are known by
 * name: their headers are not the plugin's.
 */
#include "tf-plugin.h"

namespace tf {

namespace {

enum op_kind { K_NONE, K_OP, K_ASSIGN, K_DECL, K_GOTO, K_CALL, K_LOOP };

struct named_kind {
    const char *code;
    op_kind kind;
};
const named_kind named[] = {
    {"call_expr", K_CALL},         {"aggr_init_expr", K_CALL},   {"cond_expr", K_OP},
    {"if_stmt", K_OP},             {"switch_expr", K_OP},        {"switch_stmt", K_OP},
    {"truth_andif_expr", K_OP},    {"truth_orif_expr", K_OP},    {"preincrement_expr", K_OP},
    {"predecrement_expr", K_OP},   {"postincrement_expr", K_OP}, {"postdecrement_expr", K_OP},
    /* ?: and abs() the C front end has already folded */
    {"min_expr", K_OP},            {"max_expr", K_OP},           {"abs_expr", K_OP},
    {"modify_expr", K_ASSIGN},     {"init_expr", K_ASSIGN},      {"decl_expr", K_DECL},
    {"for_stmt", K_LOOP},          {"while_stmt", K_LOOP},       {"do_stmt", K_LOOP},
    {"range_for_stmt", K_LOOP},    {"loop_expr", K_LOOP},        {"goto_expr", K_GOTO},
};

unsigned char kinds[MAX_TREE_CODES];

void learn_kinds(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    for (int c = 0; c < MAX_TREE_CODES; c++)
        for (const named_kind &n : named)
            if (!strcmp(get_tree_code_name(tree_code(c)), n.code))
                kinds[c] = n.kind;
}

/* Labels GCC makes itself (a C switch's break) are no goto of the source. */
bool source_goto(tree t)
{
    tree dest = GOTO_DESTINATION(t);
    return TREE_CODE(dest) != LABEL_DECL || !DECL_ARTIFICIAL(dest);
}

/* A return's store into the result is no assignment the source wrote. */
bool counts(tree t, op_kind k)
{
    switch (k) {
    case K_ASSIGN:
        return TREE_CODE(TREE_OPERAND(t, 0)) != RESULT_DECL;
    case K_DECL: {
        tree v = DECL_EXPR_DECL(t);
        return VAR_P(v) && !TREE_STATIC(v) && !DECL_EXTERNAL(v) && DECL_INITIAL(v);
    }
    case K_GOTO:
        return source_goto(t);
    default:
        return k == K_OP || k == K_CALL || k == K_LOOP;
    }
}

tree count_op(tree *tp, int *walk_subtrees, void *data)
{
    core::body_size &size = *(core::body_size *)data;
    tree t = *tp;
    if (TYPE_P(t)) {
        *walk_subtrees = 0;
        return NULL_TREE;
    }
    op_kind k = op_kind(kinds[TREE_CODE(t)]);
    if (counts(t, k))
        size.ops++;
    if (k == K_CALL)
        size.calls++;
    if (k == K_LOOP)
        size.loops++;
    return NULL_TREE;
}

/* By DECL_UID, and by location for the copies C++ makes of a constructor
 * or destructor after its body was handed over (C1/C2, D0/D1/D2). */
std::map<unsigned, core::body_size> by_uid;
std::map<location_t, core::body_size> by_loc;

} // namespace

void measure_body(void *gcc_data, void *)
{
    tree fn = (tree)gcc_data;
    /* The rules' min-size needs every function's; the hooks' shape
     * (plugin-core/size.h) those of the monitored ones. */
    if (opts.rules.empty() && !lookup_attribute("tf_monitor", DECL_ATTRIBUTES(fn)))
        return;
    learn_kinds();
    core::body_size size;
    walk_tree_without_duplicates(&DECL_SAVED_TREE(fn), count_op, &size);
    by_uid[DECL_UID(fn)] = size;
    by_loc[DECL_SOURCE_LOCATION(fn)] = size;
}

bool body_size_of(tree fn, core::body_size &out)
{
    auto u = by_uid.find(DECL_UID(fn));
    if (u != by_uid.end()) {
        out = u->second;
        return true;
    }
    auto l = by_loc.find(DECL_SOURCE_LOCATION(fn));
    if (l == by_loc.end())
        return false;
    out = l->second;
    return true;
}

} // namespace tf
