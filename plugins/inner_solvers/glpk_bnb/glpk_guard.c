/* SPDX-License-Identifier: MIT */
#include "glpk_guard.h"

#include <setjmp.h>
#include <stddef.h>

#include <glpk.h>

/* The jump target lives in the frame of arbo_glpk_guarded; GLPK hands it back as `info`. */
static void error_hook(void* info) {
  jmp_buf* target = (jmp_buf*)info;
  /* GLPK's state is undefined after a fatal error; the documented recovery is to free the
   * whole environment before leaving the hook. */
  glp_free_env();
  longjmp(*target, 1);
}

int arbo_glpk_guarded(arbo_glpk_body body, void* data, arbo_glpk_term term, void* term_info) {
  jmp_buf target;
  glp_term_hook(term, term_info);
  glp_error_hook(error_hook, &target);
  if (setjmp(target) != 0) {
    /* The environment is gone, and with it both hooks; the next GLPK call starts afresh. */
    return 1;
  }
  body(data);
  glp_error_hook(NULL, NULL);
  glp_term_hook(NULL, NULL);
  return 0;
}

int arbo_glpk_free_env(void) { return glp_free_env(); }

int arbo_glpk_thread_local(void) { return glp_config("TLS") != NULL; }
