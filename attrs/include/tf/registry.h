/*
 * registry.h: the MethodMonitorRegistry (docs/design.md .reg).
 *
 * Groups are identified by name across the process. A factory registered on a
 * group reaches every TU's holder for that group and for all its (transitive)
 * subgroups; a TU that arrives later (dlopen) gets its monitors at once.
 *
 *   int rc = tf_register("io", tf_dprint(stderr));   TF_OK, TF_EPERM, TF_EINVAL
 *   tf_clear("io");
 */
#ifndef TF_REGISTRY_H
#define TF_REGISTRY_H

#include <tf/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Attach f to group (one factory per group; a later call replaces it). Needs
 * permission: see tf_trust_module. f is not copied and must outlive its use. */
int tf_register(const char *group, tf_factory *f);
/* Detach whatever is registered on group. Needs no permission. */
int tf_clear(const char *group);
/* Detach everything. */
void tf_clear_all(void);
tf_factory *tf_registered_factory(const char *group);
/* The monitor now in tu's holder for group, or NULL. */
tf_monitor *tf_monitor_for_tu(const tf_tu *tu, const char *group);

/* Function selection inside groups (README "Selecting functions"): items
 * "+GLOB" (or "GLOB") include, "-GLOB" exclude the monitored functions whose
 * "<tu>.<name>" the glob matches (the name alone when the glob has no '.'),
 * separated by ','. tf_select appends items to the selection; the last item
 * matching a function decides, and a function no item matches is selected
 * unless the first item is an inclusion. A deselected function runs as if
 * its group had no monitor (the off path). Applies to TUs loaded later too.
 * TF_OK, or TF_EINVAL (nothing applied) for a malformed item. Needs no
 * permission: it never gives a function a monitor its group lacks. */
int tf_select(const char *items);
void tf_select_reset(void);
/* 1 if function id of tu follows its group's monitor, 0 if deselected,
 * TF_EINVAL if it is not a monitored function of a registered TU. */
int tf_selected(const tf_tu *tu, int id);

/* Name tables: an id is the index of a tracing name in the TU's sorted table. */
const char *tf_method_name(const tf_tu *tu, int id); /* NULL if out of range  */
int tf_method_id(const tf_tu *tu, const char *name); /* TF_ENOENT if unknown */

/* Registered TUs, by file path or base name; and all of them. */
const tf_tu *tf_tu_find(const char *name);
typedef int (*tf_tu_visitor)(const tf_tu *tu, void *arg); /* nonzero stops */
int tf_tu_foreach(tf_tu_visitor fn, void *arg);

/* The group graph merged over every registered TU. A group is known once a
 * registered TU declares or uses it (registering on it does not count). */
int tf_group_known(const char *group);
/* Writes up to max direct subgroup names of group; returns their count. */
int tf_group_subgroups(const char *group, const char **out, int max);

/* ---- permission -----------------------------------------------------------
 * tf_register is allowed only from trusted modules (executable or shared
 * object). Trusted from the start: the
 * modules loaded when the runtime initialised (the executable and its
 * DT_NEEDED libraries). A module dlopen'ed later is trusted only once trusted
 * code calls tf_trust_module with an address inside it. tf_seal freezes the
 * trust set; TF_SEAL_REGISTRATIONS also refuses every later tf_register.
 */
#define TF_SEAL_TRUST 1
#define TF_SEAL_REGISTRATIONS 2
int tf_trust_module(const void *addr_in_module);
int tf_seal(int what);

/* The calling module is named by an address inside it. The macros below pass
 * &__dso_handle, the hidden anchor every ELF module gets from crtbegin; the
 * functions above (for function pointers and other languages) use their return
 * address, which a tail call in the caller would attribute to its caller. */
int tf_register_from(const char *group, tf_factory *f, const void *module);
int tf_trust_module_from(const void *addr_in_module, const void *module);
int tf_seal_from(int what, const void *module);
#if !defined(TF_NO_CALLER_MACROS)
extern void *__dso_handle;
#define tf_register(group, f) tf_register_from((group), (f), &__dso_handle)
#define tf_trust_module(addr) tf_trust_module_from((addr), &__dso_handle)
#define tf_seal(what) tf_seal_from((what), &__dso_handle)
#endif

typedef struct tf_denial {
    char module[256]; /* path of the calling module ("?" if unknown) */
    char what[64];    /* "register io", "trust", "seal"              */
    int reason;       /* TF_EPERM                                    */
} tf_denial;
/* Total denied calls since start; copies up to max of the latest into out. */
unsigned long tf_denials(tf_denial *out, int max);

#ifdef __cplusplus
}
#endif
#endif
