/* json.h: JSON and XML text escaping for the outputs (json.c). */
#ifndef TF_DUMP_JSON_H
#define TF_DUMP_JSON_H

#include <stdio.h>

#include <tf/types.h>

void td_json_string(FILE *out, const char *s);
void td_xml_text(FILE *out, const char *s);
/* A value as dprint writes it: a JSON number for an integer or a finite
 * floating value a double holds exactly as written, true/false for bool,
 * else a JSON string. */
void td_json_value(FILE *out, const tf_value *v);
/* Text already formatted (LTTng's): a number when it reads as one. */
void td_json_text_value(FILE *out, const char *text);
/* s reads as a JSON number that a double keeps as written. */
int td_json_number(const char *s);

#endif
