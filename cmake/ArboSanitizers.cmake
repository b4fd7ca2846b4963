# ARBO_SANITIZE: the whole tree (libraries, plugins, tests, the CLI) built with AddressSanitizer
# and UndefinedBehaviorSanitizer, as CI's second build directory does (tools/test). Any UBSan
# report aborts the process (-fno-sanitize-recover), so it fails the test that caused it; ASan's
# leak detection is on by default.
#
# ARBO_FUZZ (clang only, implies ARBO_SANITIZE): also builds the libFuzzer harnesses of
# bench/fuzz and registers the replay of their committed corpora as tests. The code the
# harnesses reach gets coverage instrumentation there (bench/fuzz/CMakeLists.txt).
option(ARBO_SANITIZE "Build everything with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(ARBO_FUZZ "Build the libFuzzer harnesses of bench/fuzz (clang; implies ARBO_SANITIZE)" OFF)

if(ARBO_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ARBO_FUZZ needs clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++ (Debian packages clang, libclang-rt-14-dev)")
  endif()
  set(ARBO_SANITIZE ON CACHE BOOL "" FORCE)
endif()

if(ARBO_SANITIZE)
  set(ARBO_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
                           -fno-omit-frame-pointer)
  add_compile_options(${ARBO_SANITIZER_FLAGS})
  add_link_options(${ARBO_SANITIZER_FLAGS})
endif()
