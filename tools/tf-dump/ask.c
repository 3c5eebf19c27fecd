/*
 * ask.c: the questions of `--ask` (docs/design.md .ask.questions), each one
 * SQL over schema.sql that `--explain` prints, so users can take it further.
 * SmartMonitor (Liao, 1992) asked "how much time is spent in calls to G from
 * F that repeat the parameters of an earlier call in the same invocation of
 * F" (repeats F G) and "which calls of X call both FOO and BAR, with their
 * durations" (within X FOO, within X BAR, or the README's SQL).
 *
 * F, G: a function's name or "<tu>.<name>", or a glob of either. The user's
 * words enter the SQL only as quoted literals.
 */
#include <ctype.h>
#include <string.h>

#include "db.h"
#include "names.h"

enum { CALLERS, WITHIN, REPEATS, SLOWEST, WHERE, HISTOGRAM, NQUESTIONS };

static const struct question {
    const char *word, *usage;
    int functions;         /* how many F, G it takes */
} questions[NQUESTIONS] = {
    {"callers", "callers F", 1},     {"within", "within F G", 2},   {"repeats", "repeats F G", 2},
    {"slowest", "slowest F [N]", 1}, {"where", "where ARG=VALUE", 0}, {"histogram", "histogram F", 1},
};

static const char list[] = "callers F, within F G, repeats F G, slowest F [N], where ARG=VALUE, "
                           "histogram F";

typedef struct parsed {
    int kind;
    char *words[3];        /* F, G, N; for where: ARG, VALUE */
    int nwords;
} parsed;

static void free_parsed(parsed *p)
{
    for (int i = 0; i < 3; i++)
        free(p->words[i]);
}

static int bad(const char *fmt, const char *value)
{
    fputs("tf-dump: --ask: ", stderr);
    const char *at = strstr(fmt, "%s");
    fwrite(fmt, 1, at ? (size_t)(at - fmt) : strlen(fmt), stderr);
    if (at) {
        td_put_text(stderr, value);
        fputs(at + 2, stderr);
    }
    fputs("\n", stderr);
    return 0;
}

static const char *skip_blanks(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

/* The blank-separated words after the question's own. */
static int split(parsed *p, const char *s)
{
    for (s = skip_blanks(s); *s; s = skip_blanks(s)) {
        size_t n = 0;
        while (s[n] && !isspace((unsigned char)s[n]))
            n++;
        if (p->nwords == 3)
            return 0;
        if (!(p->words[p->nwords++] = strndup(s, n)))
            return 0;
        s += n;
    }
    return 1;
}

/* "where ARG=VALUE": VALUE is the rest, blanks and '=' included. */
static int split_where(parsed *p, const char *s)
{
    s = skip_blanks(s);
    const char *eq = strchr(s, '=');
    size_t n = eq ? (size_t)(eq - s) : 0;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (!eq || !n || memchr(s, ' ', n))
        return bad("where wants ARG=VALUE (an argument's name, then its value as tf-dump shows "
                   "it), not '%s'", s);
    p->words[0] = strndup(s, n);
    p->words[1] = strdup(eq + 1);
    p->nwords = 2;
    return p->words[0] && p->words[1];
}

static int count_ok(const parsed *p)
{
    const struct question *q = &questions[p->kind];
    long n;
    char *end;
    if (p->kind == SLOWEST && p->nwords == 2) {
        n = strtol(p->words[1], &end, 10);
        if (*end || n < 1 || !isdigit((unsigned char)*p->words[1]))
            return bad("slowest F N: N is a count from 1, not '%s'", p->words[1]);
        return 1;
    }
    if (p->nwords == q->functions)
        return 1;
    fprintf(stderr, "tf-dump: --ask: %s takes %d function%s (%s), not %d\n", q->word,
            q->functions, q->functions > 1 ? "s" : "", q->usage, p->nwords);
    return 0;
}

static int parse(parsed *p, const char *question)
{
    memset(p, 0, sizeof *p);
    const char *s = skip_blanks(question);
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n]))
        n++;
    if (!n) {
        fprintf(stderr, "tf-dump: --ask wants a question: %s\n", list);
        return 0;
    }
    for (p->kind = 0; p->kind < NQUESTIONS; p->kind++)
        if (strlen(questions[p->kind].word) == n && strncmp(questions[p->kind].word, s, n) == 0)
            break;
    if (p->kind == NQUESTIONS) {
        char *word = strndup(s, n);
        fputs("tf-dump: --ask: unknown question '", stderr);
        td_put_text(stderr, word ? word : "?");
        fprintf(stderr, "'; the questions: %s\n", list);
        free(word);
        return 0;
    }
    if (p->kind == WHERE)
        return split_where(p, s + n);
    if (!split(p, s + n)) {
        fprintf(stderr, "tf-dump: --ask: %s takes %s\n", questions[p->kind].word,
                questions[p->kind].usage);
        return 0;
    }
    return count_ok(p);
}

/* ---- SQL text ------------------------------------------------------------ */
/* s as an SQL string literal. */
static void literal(FILE *f, const char *s)
{
    putc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            putc('\'', f);
        putc(*s, f);
    }
    putc('\'', f);
}

/* Writes fmt, where %F and %G are the sets of function ids of words[0] and
 * words[1], %A and %V words[0] and words[1] as literals, %N slowest's count
 * (10 when not given), %% a '%'. */
static void sql(FILE *f, const parsed *p, const char *fmt)
{
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            putc(*fmt, f);
            continue;
        }
        char c = *++fmt;
        if (c == '%') {
            putc('%', f);
        } else if (c == 'F' || c == 'G') {
            const char *w = p->words[c == 'G'];
            fputs("(SELECT id FROM function WHERE name GLOB ", f);
            literal(f, w);
            fputs(" OR full_name GLOB ", f);
            literal(f, w);
            fputs(")", f);
        } else if (c == 'A' || c == 'V') {
            literal(f, p->words[c == 'V']);
        } else if (c == 'N') {
            fputs(p->kind == SLOWEST && p->nwords == 2 ? p->words[1] : "10", f);
        }
    }
}

#define RESULT_OF(c) "(SELECT a.value FROM arg a WHERE a.call_id = " c ".id AND a.pos = -1)"

static const char *const templates[NQUESTIONS] = {
    [CALLERS] =
        "-- who calls F, how often, and how long those calls of F took\n"
        "SELECT coalesce(pf.full_name, '(outermost)') AS caller, f.full_name AS function,\n"
        "       count(*) AS calls, sum(c.dur) AS total_ns, round(avg(c.dur), 1) AS mean_ns,\n"
        "       max(c.dur) AS max_ns\n"
        "  FROM call c\n"
        "  JOIN function f ON f.id = c.function_id\n"
        "  LEFT JOIN call p ON p.id = c.parent_id\n"
        "  LEFT JOIN function pf ON pf.id = p.function_id\n"
        " WHERE c.function_id IN %F\n"
        " GROUP BY p.function_id, c.function_id\n"
        " ORDER BY total_ns DESC, calls DESC, caller",
    [WITHIN] =
        "-- per call of F: the calls of G anywhere inside it (on its thread, begun\n"
        "-- after it and before its end: its callees, theirs, ...), how many, their time\n"
        "SELECT c.id AS call_id, f.full_name AS function, t.name AS thread, c.ts AS ts,\n"
        "       c.dur AS dur, count(g.id) AS g_calls, coalesce(sum(g.dur), 0) AS g_total_ns\n"
        "  FROM call c\n"
        "  JOIN function f ON f.id = c.function_id\n"
        "  JOIN thread t ON t.utid = c.utid\n"
        "  LEFT JOIN call g ON g.function_id IN %G\n"
        "       AND g.utid = c.utid AND g.ts >= c.ts AND g.id > c.id\n"
        "       AND g.ts < coalesce(c.ts + c.dur, 9223372036854775807)\n"
        " WHERE c.function_id IN %F\n"
        " GROUP BY c.id\n"
        " ORDER BY c.ts, c.id",
    [REPEATS] =
        "-- the cache question: calls of G made by a call of F with the same arguments\n"
        "-- as an earlier call of G by that same call of F, and the time they took:\n"
        "-- per call of F and arguments, all calls but the first (min(c.id): SQLite\n"
        "-- takes c.dur from the row with the minimum)\n"
        "WITH per_call AS (\n"
        "  SELECT c.function_id, c.args, count(*) AS calls, sum(c.dur) AS total_ns,\n"
        "         min(c.id) AS first, c.dur AS first_dur\n"
        "    FROM call c JOIN call p ON p.id = c.parent_id\n"
        "   WHERE c.function_id IN %G\n"
        "     AND p.function_id IN %F\n"
        "   GROUP BY c.parent_id, c.function_id, c.args\n"
        "), per AS (\n"
        "  SELECT f.full_name AS function, s.args AS args, sum(s.calls) AS calls,\n"
        "         sum(s.calls - 1) AS repeats, coalesce(sum(s.total_ns - s.first_dur), 0) AS repeat_ns,\n"
        "         coalesce(sum(s.total_ns), 0) AS total_ns\n"
        "    FROM per_call s JOIN function f ON f.id = s.function_id\n"
        "   GROUP BY s.function_id, s.args\n"
        ")\n"
        "SELECT function, args, calls, repeats, repeat_ns, total_ns FROM (\n"
        "  SELECT 0 AS k, '(all)' AS function, NULL AS args, coalesce(sum(calls), 0) AS calls,\n"
        "         coalesce(sum(repeats), 0) AS repeats, coalesce(sum(repeat_ns), 0) AS repeat_ns,\n"
        "         coalesce(sum(total_ns), 0) AS total_ns FROM per\n"
        "  UNION ALL\n"
        "  SELECT 1, function, args, calls, repeats, repeat_ns, total_ns FROM per WHERE repeats > 0)\n"
        " ORDER BY k, repeat_ns DESC, function, args",
    [SLOWEST] =
        "-- the slowest calls of F, with their arguments and results\n"
        "SELECT c.id AS call_id, f.full_name AS function, t.name AS thread, c.ts AS ts,\n"
        "       c.dur AS dur, c.self_dur AS self_dur, c.args AS args,\n"
        "       " RESULT_OF("c") " AS result\n"
        "  FROM call c\n"
        "  JOIN function f ON f.id = c.function_id\n"
        "  JOIN thread t ON t.utid = c.utid\n"
        " WHERE c.function_id IN %F\n"
        " ORDER BY c.dur DESC, c.id\n"
        " LIMIT %N",
    [WHERE] =
        "-- the calls that got this value (the name 'return': that returned it)\n"
        "SELECT c.id AS call_id, f.full_name AS function, t.name AS thread, c.ts AS ts,\n"
        "       c.dur AS dur, c.args AS args,\n"
        "       " RESULT_OF("c") " AS result\n"
        "  FROM arg w\n"
        "  JOIN call c ON c.id = w.call_id\n"
        "  JOIN function f ON f.id = c.function_id\n"
        "  JOIN thread t ON t.utid = c.utid\n"
        " WHERE w.name = %A AND w.value = %V\n"
        " ORDER BY c.ts, c.id",
    [HISTOGRAM] =
        "-- F's durations in powers of two: each row counts the calls that took\n"
        "-- from_ns to to_ns (calls without an exit left out)\n"
        "WITH d AS (SELECT dur FROM call WHERE function_id IN %F AND dur IS NOT NULL),\n"
        "b AS (SELECT CASE WHEN dur < 1 THEN 0 ELSE CAST(log2(dur) AS INTEGER) + 1 END AS k,\n"
        "             count(*) AS n\n"
        "        FROM d GROUP BY k),\n"
        "ks(k) AS (SELECT min(k) FROM b\n"
        "          UNION ALL SELECT k + 1 FROM ks WHERE k < (SELECT max(k) FROM b))\n"
        "SELECT CASE WHEN ks.k = 0 THEN 0 ELSE 1 << (ks.k - 1) END AS from_ns,\n"
        "       (1 << ks.k) - 1 AS to_ns, coalesce(b.n, 0) AS calls,\n"
        "       CASE WHEN b.n IS NULL THEN '' ELSE printf('%%.*c',\n"
        "         max(1, CAST(40.0 * b.n / (SELECT max(n) FROM b) + 0.5 AS INTEGER)), '#') END AS bar\n"
        "  FROM ks LEFT JOIN b USING (k)\n"
        " WHERE ks.k IS NOT NULL\n"
        " ORDER BY ks.k",
};

/* ---- names the question uses must be in the recording --------------------- */
/* Every value of the one-column query q, for the nearest names. */
static void put_nearest(sqlite3 *db, const char *q, const char *want)
{
    sqlite3_stmt *st;
    char **names = NULL;
    uint32_t n = 0, cap = 0;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW && td_grow(&names, &cap, n, sizeof *names, 64))
            if ((names[n] = strdup((const char *)sqlite3_column_text(st, 0))))
                n++;
    sqlite3_finalize(st);
    td_put_nearest(stderr, want, (const char *const *)names, n);
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* 1 if the one-row query q with ?1 = word finds something. */
static int found(sqlite3 *db, const char *q, const char *word)
{
    sqlite3_stmt *st;
    int any = 0;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, word, -1, SQLITE_STATIC);
        any = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return any;
}

static int names_known(sqlite3 *db, const parsed *p)
{
    if (p->kind == WHERE) {
        if (found(db, "SELECT 1 FROM arg WHERE name = ?1 LIMIT 1", p->words[0]))
            return 1;
        fputs("tf-dump: --ask: no call has an argument named '", stderr);
        td_put_text(stderr, p->words[0]);
        fputs("'", stderr);
        put_nearest(db, "SELECT DISTINCT name FROM arg", p->words[0]);
        fputs("\n", stderr);
        return 0;
    }
    for (int i = 0; i < questions[p->kind].functions; i++) {
        if (found(db, "SELECT 1 FROM function WHERE name GLOB ?1 OR full_name GLOB ?1 LIMIT 1",
                  p->words[i]))
            continue;
        fputs("tf-dump: --ask: no function of the recording matches '", stderr);
        td_put_text(stderr, p->words[i]);
        fputs("'", stderr);
        put_nearest(db, "SELECT full_name FROM function", p->words[i]);
        fputs("\n", stderr);
        return 0;
    }
    return 1;
}

int td_ask_check(const char *question)
{
    parsed p;
    int ok = parse(&p, question);
    free_parsed(&p);
    return ok;
}

char *td_ask_sql(sqlite3 *db, const char *question)
{
    parsed p;
    char *out = NULL;
    size_t len = 0;
    FILE *f;
    if (parse(&p, question) && names_known(db, &p) && (f = open_memstream(&out, &len))) {
        sql(f, &p, templates[p.kind]);
        if (fclose(f) != 0) {
            free(out);
            out = NULL;
        }
    }
    free_parsed(&p);
    return out;
}
