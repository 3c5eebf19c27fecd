/* json.h: JSON and XML text escaping for the outputs (json.c). */
#ifndef TF_DUMP_JSON_H
#define TF_DUMP_JSON_H

#include <stdio.h>

#include <tf/types.h>

void td_json_string(FILE *out, const char *s);
void td_xml_text(FILE *out, const char *s);
/* A value as dprint writes it, as a JSON string. */
void td_json_value(FILE *out, const tf_value *v);

#endif
