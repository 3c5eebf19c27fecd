/*
 * names.h: the TU's name table (docs/code-shape.md section 2): every
 * monitored and info function's tracing name, sorted by strcmp so that an
 * id is an index ("all names are sorted to give a standard order"). Two
 * functions share an entry only as a TF_TP_ENTER/TF_TP_EXIT info pair;
 * C++ overloads matched by a rules file become "name#2", "name#3", ... in
 * source order; any other shared name is a clash the plugin reports.
 */
#ifndef TF_CORE_NAMES_H
#define TF_CORE_NAMES_H

#include <string>
#include <vector>

namespace tf {
namespace core {

/* One function the TU monitors or reports as an info function. */
struct fn_candidate {
    std::string name;  /* tracing name */
    bool monitor = false;
    int tp = 0;        /* info functions: 0 NONE, 1 ENTER, 2 EXIT */
    std::string group; /* monitored functions */
    bool from_rules = false;
    std::string file;
    unsigned line = 0;
    std::string function; /* its default tracing name, for the manifest */
    unsigned place = 0;    /* rank of its location; equal ranks: one function
                              seen twice (GCC's C++ constructor clones) */
    bool call = false;     /* a call site's callee (call_sites.h): a monitored name
                              with TF_NAME_CALL, yielding to a function's name */
    unsigned rule = 0;     /* the rules line that monitors it (0: none) */
};

struct name_entry {
    std::string name;
    unsigned flags = 0; /* TF_NAME_* */
    int group = -1;     /* index into name_table::used_groups; -1 for info */
    std::string file;
    unsigned line = 0;
    std::string function;
    size_t first = 0; /* the candidate it was made from */
    unsigned rule = 0;
};

struct name_clash {
    size_t fn, other; /* candidates: fn reuses other's name */
};

struct name_table {
    std::vector<name_entry> names;
    std::vector<std::string> used_groups; /* sorted by strcmp */
    std::vector<int> ids;                 /* per candidate; -1 after a clash */
    std::vector<name_clash> clashes;

    int id_of(const std::string &tracing_name) const;
};

/* Renames rules-file clashes in cands (name#N), then builds the table. A
 * call candidate whose name a function candidate has is left out (id -1,
 * no clash): the function's own events already trace it. */
name_table build_names(std::vector<fn_candidate> &cands);

struct call_site;
/* One call candidate per callee name of the traced sites: the group, file
 * and line of its first site (by place). */
void add_call_candidates(const std::vector<call_site> &sites, std::vector<fn_candidate> &cands);
/* Each traced site's id in t, or call_skip::name_taken. */
void assign_call_ids(std::vector<call_site> &sites, const name_table &t);

} // namespace core
} // namespace tf

#endif
