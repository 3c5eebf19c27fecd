/* respfile.c: see respfile.h. */
#include "respfile.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0)
            text = realloc(text, cap *= 2);
    }
    fclose(f);
    if (text)
        text[len] = 0;
    return text;
}

static void push(tf_cc_args *out, const char *word, size_t len)
{
    out->args = realloc(out->args, (size_t)(out->count + 1) * sizeof *out->args);
    out->args[out->count++] = strndup(word, len);
}

/* Splits text in place: unquoted words are compacted into word. */
static void split(char *text, tf_cc_args *out)
{
    char *p = text;
    while (*p) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        char *word = p, *w = p;
        char quote = 0;
        for (; *p && (quote || !isspace((unsigned char)*p)); p++) {
            if (quote ? *p == quote : (*p == '\'' || *p == '"'))
                quote = quote ? 0 : *p;
            else if (*p == '\\' && quote != '\'' && p[1])
                *w++ = *++p;
            else
                *w++ = *p;
        }
        push(out, word, (size_t)(w - word));
    }
}

int tf_cc_read_respfile(const char *path, tf_cc_args *out)
{
    char *text = slurp(path);
    out->args = NULL;
    out->count = 0;
    if (!text)
        return -1;
    split(text, out);
    free(text);
    return 0;
}

void tf_cc_args_free(tf_cc_args *args)
{
    for (int i = 0; i < args->count; i++)
        free(args->args[i]);
    free(args->args);
}
