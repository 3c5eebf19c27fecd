/*
 * out.c: TF_OUT, output buffers shown at exit (docs/design.md .silent.out).
 * A `char *` a function fills is garbage when its call begins, and that is
 * what dprint showed (`err="\240G\211y"`). TF_OUT names such parameters:
 *
 *   TF_OUT='count_words:out,*.format:buf'     FUNCTION_GLOB:PARAMETER items
 *
 * dprint then prints the parameter as the pointer it is at the entry, and as
 * the string it holds at the exit: `app.count_words<- out="3"`. The pointer
 * is kept from the entry to the exit on a stack of the thread's own (pages,
 * never malloc: a hook), frames a longjmp skipped dropped by stack position.
 * An item whose glob matched no monitored function, or whose parameter no
 * call had, is said at exit with the nearest names.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "config.h"
#include "nearest.h"

struct tf_out_item {
    char *glob, *param;
    int index;           /* its place in TF_OUT */
    tf_pending *seen;    /* the glob, watched for "matched nothing" */
    int met;             /* a call had the parameter (relaxed atomic) */
    int named;           /* 1 once names of a call without it are kept */
    char names[256];     /* the arguments of that call, for the message */
};

static struct tf_out_item *items;
static int nitems;

/* "GLOB:PARAM" items; a malformed one is said and left out. */
static void parse(const char *value)
{
    char *copy = strdup(value);
    int index = 0;
    for (char *it = copy, *next; it; it = next) {
        next = strchr(it, ',');
        if (next)
            *next++ = 0;
        index++;
        it += strspn(it, " \t\n");
        char *colon = strrchr(it, ':'), *end = it + strlen(it);
        while (end > it && strchr(" \t\n", end[-1]))
            *--end = 0;
        if (!*it)
            continue;
        if (!colon || colon == it || !colon[1]) {
            fprintf(stderr, "tf: TF_OUT: item %d '", index);
            tf__config_escaped(stderr, it);
            fprintf(stderr, "': expected FUNCTION:PARAMETER (a char * the function fills)\n");
            continue;
        }
        *colon = 0;
        struct tf_out_item *more = realloc(items, (size_t)(nitems + 1) * sizeof *items);
        if (!more)
            break;
        items = more;
        items[nitems] = (struct tf_out_item){.glob = strdup(it), .param = strdup(colon + 1),
                                             .index = index, .seen = tf__pending_function(it)};
        if (items[nitems].glob && items[nitems].param)
            nitems++;
    }
    free(copy);
}

/* "tf: TF_OUT: item N 'GLOB:PARAM<why>[; hint]", what the user wrote escaped. */
static void say(const struct tf_out_item *it, const char *why, const char *hint)
{
    fprintf(stderr, "tf: TF_OUT: item %d '", it->index);
    tf__config_escaped(stderr, it->glob);
    fputc(':', stderr);
    tf__config_escaped(stderr, it->param);
    fprintf(stderr, "%s%s%s\n", why, *hint ? "; " : "", hint);
}

static void check_at_exit(void)
{
    for (int i = 0; i < nitems; i++) {
        struct tf_out_item *it = &items[i];
        char hint[256] = "";
        if (it->seen && !tf__pending_matched(it->seen)) {
            tf__pending_hint(it->seen, hint, sizeof hint);
            say(it, "' matched no monitored function of the code loaded", hint);
        } else if (__atomic_load_n(&it->named, __ATOMIC_ACQUIRE) == 2 &&
                   !__atomic_load_n(&it->met, __ATOMIC_RELAXED)) {
            tf_nearest near;
            tf_nearest_begin(&near, it->param);
            char *names = strdup(it->names), *save = NULL;
            for (char *n = names ? strtok_r(names, ", ", &save) : NULL; n; n = strtok_r(NULL, ", ", &save))
                tf_nearest_offer(&near, n);
            tf_nearest_say(&near, hint, sizeof hint);
            tf_nearest_end(&near);
            free(names);
            char why[512];
            snprintf(why, sizeof why, "': no call had a char * argument of that name (they had: %s)",
                     it->names);
            say(it, why, hint);
        }
    }
}

/* From libtf's constructor (env.c): not lazily, from a monitor's creation,
 * which runs under the registry's lock that watching a glob takes. The
 * items never change after, so monitors read them without a lock. */
void tf__out_init(void)
{
    const char *value = tf__config_get("TF_OUT");
    if (!value)
        return;
    parse(value);
    if (nitems)
        tf__at_exit(check_at_exit);
}

const tf_out_item **tf__out_params(const tf_tu *tu)
{
    const tf_out_item **params = NULL;
    for (uint32_t id = 0; nitems && id < tu->nnames; id++) {
        if (!(tu->names[id].flags & TF_NAME_MONITOR))
            continue;
        for (int i = 0; i < nitems; i++)
            if (tf__function_matches(items[i].glob, tu, tu->names[id].name)) {
                if (!params && !(params = calloc(tu->nnames, sizeof *params)))
                    return NULL;
                params[id] = &items[i];
                break;
            }
    }
    return params;
}

/* ---- each thread's pointers, from entry to exit --------------------------- */

struct frame {
    uintptr_t sp;
    const void *owner;
    int id;
    const char *ptr;
};

struct stack {
    struct frame *v;
    int n, cap;
};

static TF_TLS struct stack *mine;
static pthread_key_t key;

static void release(void *p)
{
    struct stack *s = p;
    mine = NULL;
    tf__pages_free(s->v, (size_t)s->cap * sizeof *s->v);
    tf__pages_free(s, sizeof *s);
}

__attribute__((constructor(101))) static void make_key(void)
{
    pthread_key_create(&key, release);
}

static void drop_dead(struct stack *s, uintptr_t sp)
{
    while (s->n && s->v[s->n - 1].sp < sp)
        s->n--;
}

/* The item's arguments of a call without the parameter, kept once. */
static void keep_names(struct tf_out_item *it, const tf_args *args)
{
    int none = 0;
    if (!__atomic_compare_exchange_n(&it->named, &none, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    tf_buf b = {it->names, sizeof it->names, 0};
    for (uint32_t k = 0; args && k < args->count; k++) {
        tf__buf_puts(&b, k ? ", " : "");
        tf__buf_puts(&b, args->values[k].name ? args->values[k].name : "?");
    }
    tf__buf_end(&b);
    __atomic_store_n(&it->named, 2, __ATOMIC_RELEASE);
}

const tf_value *tf__out_enter(const void *owner, const tf_out_item *item, int id, const tf_args *args,
                              uintptr_t sp)
{
    struct tf_out_item *it = (struct tf_out_item *)item;
    const tf_value *v = NULL;
    for (uint32_t k = 0; args && k < args->count && !v; k++)
        if (args->values[k].name && args->values[k].kind == TF_K_STR &&
            strcmp(args->values[k].name, it->param) == 0)
            v = &args->values[k];
    if (!v) {
        keep_names(it, args);
        return NULL;
    }
    __atomic_store_n(&it->met, 1, __ATOMIC_RELAXED);
    struct stack *s = mine;
    if (!s && (s = tf__pages_alloc(sizeof *s)) && pthread_setspecific(key, s) != 0) {
        tf__pages_free(s, sizeof *s);
        s = NULL;
    }
    if (!(mine = s))
        return v;
    drop_dead(s, sp);
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        struct frame *grown = tf__pages_grow(s->v, (size_t)s->cap * sizeof *s->v, (size_t)cap * sizeof *grown);
        if (grown) {
            s->v = grown;
            s->cap = cap;
        }
    }
    if (s->n < s->cap)
        s->v[s->n++] = (struct frame){sp, owner, id, v->v.s};
    return v;
}

int tf__out_exit(const void *owner, const tf_out_item *item, int id, uintptr_t sp, tf_value *out)
{
    struct stack *s = mine;
    if (!s)
        return 0;
    drop_dead(s, sp);
    for (int i = s->n - 1; i >= 0 && s->v[i].sp == sp; i--)
        if (s->v[i].owner == owner && s->v[i].id == id) {
            *out = (tf_value){item->param, TF_K_STR, sizeof(char *), {.s = s->v[i].ptr}, NULL};
            memmove(&s->v[i], &s->v[i + 1], (size_t)(s->n - i - 1) * sizeof *s->v);
            s->n--;
            return 1;
        }
    return 0;
}
