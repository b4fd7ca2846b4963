# Warnings for arbo's own targets. Third-party headers are included as SYSTEM so they do not
# trigger these.
function(arbo_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
                                           -Wnon-virtual-dtor -Wno-unused-parameter)
endfunction()
