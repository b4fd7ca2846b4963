# Warnings for arbo's own targets. Third-party headers are included as SYSTEM so they do not
# trigger these.
function(arbo_set_warnings target)
  # -Wshadow=local is GCC's; clang (the sanitizer and fuzz build) has no such level.
  set(_arbo_shadow -Wshadow=local)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(_arbo_shadow "")
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic ${_arbo_shadow}
                                           -Wnon-virtual-dtor -Wno-unused-parameter)
endfunction()
