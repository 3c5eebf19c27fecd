/* Subgroup names must be C identifiers. */
#include <tf/tf.h>
TF_GROUP(io, io-read);
// expect-error: 3:1: subgroup name 'io-read' of group 'io' is not an identifier
