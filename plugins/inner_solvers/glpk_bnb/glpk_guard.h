/* SPDX-License-Identifier: MIT */
/* The only place that arms GLPK's error hook. GLPK reports fatal errors (invalid arguments,
 * failed internal assertions, exhausted memory) by calling abort() unless a hook jumps out of
 * it; the jump must land in C, with no C++ frame holding an object with a destructor between
 * setjmp and the failing GLPK call (P13). Kept in C so that rule is enforced by the language
 * of this file, and the C++ side only passes plain functions and plain data through it. */
#ifndef ARBO_PLUGINS_GLPK_GUARD_H
#define ARBO_PLUGINS_GLPK_GUARD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Body of a guarded section: plain GLPK calls on plain data. It must not throw, and every
 * object in its frame must be trivially destructible, since an error skips the frame. */
typedef void (*arbo_glpk_body)(void* data);

/* Receives GLPK's terminal output, including the text of a fatal error. Returning nonzero
 * suppresses GLPK's own printing. */
typedef int (*arbo_glpk_term)(void* info, const char* text);

/* Runs body(data) with the error hook armed and `term` installed as GLPK's terminal hook.
 * Returns 0 when the body completed, 1 when GLPK signalled a fatal error: then GLPK's
 * environment has been freed (glp_free_env), so every glp_prob created before is gone and must
 * not be touched or deleted. Not re-entrant within a thread: callers serialize with one mutex,
 * or give each thread its own problems when arbo_glpk_thread_local() holds. */
int arbo_glpk_guarded(arbo_glpk_body body, void* data, arbo_glpk_term term, void* term_info);

/* Frees GLPK's per-thread environment (memory, hooks). Every glp_prob of this thread must be
 * deleted before. Returns GLPK's code (0: freed, 1: there was none). */
int arbo_glpk_free_env(void);

/* Nonzero when GLPK was built with thread-local storage for its environment (glp_config("TLS")
 * names the keyword), so that every thread has its own and threads may solve side by side. */
int arbo_glpk_thread_local(void);

#ifdef __cplusplus
}
#endif

#endif
