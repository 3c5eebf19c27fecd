#include "capture.h"

#include <algorithm>
#include <cctype>

#include "abi.h"
#include "spelling.h"

namespace tf {
namespace core {

/* ---- the SPEC's syntax ------------------------------------------------------ */

namespace {

struct spec_parser {
    const std::string &s;
    size_t i = 0;
    std::string error;
    unsigned column = 0;

    explicit spec_parser(const std::string &text) : s(text) {}

    void blanks()
    {
        while (i < s.size() && isspace((unsigned char)s[i]))
            i++;
    }
    bool fail(const std::string &why)
    {
        if (error.empty()) {
            error = why;
            column = unsigned(i + 1);
        }
        return false;
    }
    bool at(char c)
    {
        blanks();
        return i < s.size() && s[i] == c;
    }
    std::string what_is_here()
    {
        blanks();
        if (i >= s.size())
            return "the end";
        return "'" + s.substr(i, 1) + "'";
    }
    bool expect(char c)
    {
        if (at(c)) {
            i++;
            return true;
        }
        return fail(std::string("expected '") + c + "', found " + what_is_here());
    }
    bool word(std::string &out, unsigned &col, bool digits_too)
    {
        blanks();
        size_t start = i;
        while (i < s.size() && (isalnum((unsigned char)s[i]) || s[i] == '_'))
            i++;
        out = s.substr(start, i - start);
        col = unsigned(start + 1);
        if (out.empty() || (!digits_too && isdigit((unsigned char)out[0]))) {
            i = start;
            return fail("expected a name, found " + what_is_here());
        }
        return true;
    }

    bool fields(std::vector<capture_item> &out)
    {
        do {
            capture_item f;
            if (!item(f, false))
                return false;
            out.push_back(f);
        } while (at(',') && (i++, true));
        return true;
    }

    /* A root needs braces or brackets: a bare parameter is shown anyway. */
    bool item(capture_item &it, bool root)
    {
        if (!word(it.name, it.column, false))
            return false;
        if (at('[')) {
            i++;
            it.array = true;
            if (!word(it.length, it.length_column, true) || !expect(']'))
                return false;
        }
        if (at('{')) {
            i++;
            if (at('}'))
                return fail("empty '{}': name the fields to capture");
            if (!fields(it.fields) || !expect('}'))
                return false;
        } else if (!it.array && root) {
            return fail("'" + it.name + "' needs '{fields}' or '[length]'");
        }
        return true;
    }

    /* A trailing `max N`, once. */
    bool max(unsigned &out)
    {
        std::string n;
        unsigned col;
        if (!word(n, col, true))
            return false;
        char *end = NULL;
        unsigned long v = n.find_first_not_of("0123456789") == std::string::npos ? strtoul(n.c_str(), &end, 10) : 0;
        if (v < 1 || v > max_capture_max) {
            i = col - 1;
            return fail("'max' wants a number of bytes from 1 to " + std::to_string(max_capture_max));
        }
        out = unsigned(v);
        return true;
    }

    bool spec(capture_spec &out)
    {
        for (;;) {
            capture_item it;
            if (!item(it, true))
                return false;
            out.items.push_back(it);
            if (!at(','))
                break;
            i++;
        }
        blanks();
        if (i < s.size() && s.compare(i, 3, "max") == 0 && (i + 3 == s.size() || isspace((unsigned char)s[i + 3]))) {
            i += 3;
            if (!max(out.max))
                return false;
        }
        blanks();
        return i == s.size() || fail("unexpected " + what_is_here() + " after the capture list");
    }
};

} // namespace

std::string parse_capture_spec(const std::string &text, capture_spec &out, unsigned &column)
{
    spec_parser p(text);
    out = capture_spec();
    if (p.spec(out))
        return "";
    column = p.column;
    return "capture: " + p.error;
}

/* ---- resolving against the declared types ------------------------------------ */

namespace {

struct resolver {
    capture_types &ts;
    const std::string &fn;
    const std::vector<capture_root> &roots;
    unsigned max;
    std::string error;
    unsigned column = 0;

    bool fail(unsigned col, const std::string &why)
    {
        if (error.empty()) {
            error = why;
            column = col;
        }
        return false;
    }

    /* A type in a message: a struct by its spelling (the same with both
     * compilers), anything else by what it is. */
    std::string quoted(ctype t)
    {
        unsigned n;
        if (ts.is_record(t))
            return "'" + ts.spelling(t) + "'";
        if (ts.is_void(t))
            return "void";
        if (ts.array_element(t, n))
            return "an array";
        switch (ts.shape(t).kind) {
        case TF_K_INT: case TF_K_UINT: return "an integer";
        case TF_K_BOOL: return "a bool";
        case TF_K_FLOAT: return "a floating-point number";
        case TF_K_PTR: case TF_K_STR: return "a pointer";
        case TF_K_ENUM: return "an enum";
        default: return "a value";
        }
    }

    std::vector<std::string> root_names()
    {
        std::vector<std::string> n;
        for (const capture_root &r : roots)
            if (r.name != "return")
                n.push_back(r.name);
        return n;
    }

    bool integer(const value_shape &s) { return s.kind == TF_K_INT || s.kind == TF_K_UINT || s.kind == TF_K_ENUM; }

    /* The elements of an array node: their shape, text or not, and their fields. */
    bool elements(const capture_item &it, ctype elem, capture_node &n)
    {
        if (ts.is_void(elem) || ts.is_plain_char(elem)) {
            n.shape = value_shape();
            n.shape.kind = ts.is_void(elem) ? TF_K_UINT : ts.shape(elem).kind;
            n.shape.size = 1;
            n.flags |= CAP_TEXT;
            if (!it.fields.empty())
                return fail(it.column, "'" + it.name + "' holds characters, which have no fields");
        } else {
            n.shape = ts.shape(elem);
            if (n.shape.size == 0)
                return fail(it.column, "the elements of '" + it.name + "' (" + quoted(elem) + ") have no size");
            if (!it.fields.empty() && !record_fields(it, elem, n.fields))
                return false;
            if (it.fields.empty() && ts.is_record(elem))
                return fail(it.column, "the elements of '" + it.name + "' are structs (" + quoted(elem) +
                                           "): name their fields, as '" + it.name + "[" + it.length + "]{...}'");
        }
        n.flags |= CAP_ARRAY;
        n.limit = std::max(1u, max / n.shape.size);
        return true;
    }

    /* A number as LEN: a fixed count. */
    bool fixed_length(const capture_item &it, capture_node &n)
    {
        if (it.length.find_first_not_of("0123456789") != std::string::npos)
            return false;
        unsigned long v = strtoul(it.length.c_str(), NULL, 10);
        if (v == 0 || v > 1000000)
            return fail(it.length_column, "length " + it.length + " of '" + it.name + "' is out of range (1 to 1000000)");
        n.count = unsigned(v);
        n.length = -1;
        return true;
    }

    bool record_fields(const capture_item &it, ctype record, std::vector<capture_node> &out)
    {
        if (!ts.is_record(record))
            return fail(it.column, "'" + it.name + "' is not a struct or a pointer to one (" + quoted(record) + ")");
        for (const capture_item &f : it.fields) {
            for (const capture_node &seen : out)
                if (seen.name == f.name && !(seen.flags & CAP_HIDDEN))
                    return fail(f.column, "'" + f.name + "' is captured twice");
            if (!field(f, record, out))
                return false;
        }
        return true;
    }

    /* A sibling field that holds a length: found among out, or added hidden. */
    bool length_field(const capture_item &it, ctype record, std::vector<capture_node> &out, capture_node &n)
    {
        if (fixed_length(it, n) || !error.empty())
            return error.empty();
        for (size_t k = 0; k < out.size(); k++)
            if (out[k].name == it.length) {
                if (!integer(out[k].shape) || (out[k].flags & ~unsigned(CAP_HIDDEN)))
                    return fail(it.length_column, "length '" + it.length + "' of '" + it.name + "' is not an integer");
                n.flags |= CAP_LEN_FIELD;
                n.length = int(k);
                return true;
            }
        ctype lt;
        unsigned off;
        bool bits;
        if (!ts.field(record, it.length, lt, off, bits))
            return fail(it.length_column, quoted(record) + " has no field '" + it.length + "' (" +
                                              nearest_names(it.length, ts.field_names(record), "fields") + ")");
        value_shape s = ts.shape(lt);
        if (bits || !integer(s))
            return fail(it.length_column, "length '" + it.length + "' of '" + it.name + "' is not an integer (" +
                                              quoted(lt) + ")");
        capture_node hidden;
        hidden.name = it.length;
        hidden.shape = s;
        hidden.offset = off;
        hidden.flags = CAP_HIDDEN;
        out.push_back(hidden);
        n.flags |= CAP_LEN_FIELD;
        n.length = int(out.size() - 1);
        return true;
    }

    bool field(const capture_item &f, ctype record, std::vector<capture_node> &out)
    {
        ctype ft;
        unsigned off;
        bool bits;
        if (!ts.field(record, f.name, ft, off, bits))
            return fail(f.column, quoted(record) + " has no field '" + f.name + "' (" +
                                      nearest_names(f.name, ts.field_names(record), "fields") + ")");
        if (bits)
            return fail(f.column, "'" + f.name + "' of " + quoted(record) + " is a bit-field: only whole bytes are captured");
        capture_node n;
        n.name = f.name;
        n.offset = off;
        n.shape = ts.shape(ft);
        unsigned fixed = 0;
        ctype elem = ts.array_element(ft, fixed);
        ctype to = ts.pointee(ft);
        if (f.array) {
            if (!elem && !to)
                return fail(f.column, "'" + f.name + "' is neither a pointer nor an array (" + quoted(ft) +
                                          "): '" + f.name + "[...]' needs one");
            if (!length_field(f, record, out, n))
                return false;
            if (!elem)
                n.flags |= CAP_FOLLOW;
            if (!elements(f, elem ? elem : to, n))
                return false;
            if (elem) /* never past the array's end */
                n.limit = std::min(n.limit, fixed), n.count = std::min(n.count, fixed);
        } else if (!f.fields.empty()) {
            if (ts.is_record(ft)) {
                if (!record_fields(f, ft, n.fields))
                    return false;
            } else if (to && ts.is_record(to)) {
                n.flags |= CAP_FOLLOW;
                if (!record_fields(f, to, n.fields))
                    return false;
            } else {
                return fail(f.column, "'" + f.name + "' is not a struct or a pointer to one (" + quoted(ft) + ")");
            }
        } else if (elem) {
            n.count = fixed;
            if (!elements(f, elem, n))
                return false;
        } else if (ts.is_record(ft)) {
            return fail(f.column, "'" + f.name + "' is a struct (" + quoted(ft) + "): name its fields, as '" + f.name +
                                      "{...}'");
        }
        out.push_back(n);
        return true;
    }

    int root_index(const std::string &name)
    {
        for (size_t k = 0; k < roots.size(); k++)
            if (roots[k].name == name)
                return int(k);
        return -1;
    }

    bool root(const capture_item &it, capture_resolved &r)
    {
        int k = root_index(it.name);
        if (k < 0 && it.name == "this")
            return fail(it.column, "'this' names no object: '" + fn + "' is not a C++ member function");
        if (k < 0 && it.name == "return")
            return fail(it.column, "'" + fn + "' returns nothing");
        if (k < 0)
            return fail(it.column, "'" + it.name + "' is not a parameter of '" + fn + "' (" +
                                       nearest_names(it.name, root_names(), "parameters") + ")");
        ctype t = roots[size_t(k)].type;
        if (!t)
            return fail(it.column, "'" + fn + "' returns nothing");
        ctype to = ts.pointee(t);
        if (!to)
            return fail(it.column, "'" + it.name + "' is not a pointer (" + quoted(t) +
                                       "): only what a pointer points to is captured");
        capture_node &n = r.node;
        r.root = size_t(k);
        n.name = it.name;
        n.shape = ts.shape(t);
        n.flags = CAP_FOLLOW;
        if (!it.array)
            return record_fields(it, to, n.fields);
        if (!fixed_length(it, n)) {
            if (!error.empty())
                return false;
            if (it.name == "return")
                return fail(it.length_column, "the result's length cannot come from a parameter (the exit "
                                              "has none): give a number, as 'return[" + it.length + "]' cannot");
            int len = root_index(it.length);
            if (len < 0)
                return fail(it.length_column, "length '" + it.length + "' of '" + it.name + "' is not a parameter of '" +
                                                  fn + "' (" + nearest_names(it.length, root_names(), "parameters") + ")");
            value_shape ls = ts.shape(roots[size_t(len)].type);
            if (!integer(ls))
                return fail(it.length_column, "length '" + it.length + "' of '" + it.name + "' is not an integer (" +
                                                  quoted(roots[size_t(len)].type) + ")");
            n.flags |= CAP_LEN_ARG;
            n.length = len;
        }
        return elements(it, to, n);
    }
};

} // namespace

std::string resolve_capture(const capture_spec &spec, const std::string &fn, const std::vector<capture_root> &roots,
                            capture_types &types, std::vector<capture_resolved> &out, unsigned &column)
{
    resolver r{types, fn, roots, spec.max, "", 0};
    out.clear();
    for (const capture_item &it : spec.items) {
        capture_resolved c;
        if (!r.root(it, c))
            break;
        for (const capture_resolved &seen : out)
            if (seen.root == c.root) {
                r.fail(it.column, "'" + it.name + "' is captured twice");
                break;
            }
        if (!r.error.empty())
            break;
        out.push_back(c);
    }
    column = r.column;
    return r.error;
}

} // namespace core
} // namespace tf
