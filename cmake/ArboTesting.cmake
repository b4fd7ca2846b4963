# arbo's own test helpers, for the kernel and SDK tests in tests/ and for each stock plugin's
# tests in plugins/<kind>/<name>/tests/. Included from the top CMakeLists.txt before plugins/
# is added, so a plugin folder can add its tests next to its library. Not installed: a
# third-party plugin registers its tests with plain gtest_discover_tests (see sdk/templates).
#
# Test names: every ctest name starts with its executable's name, and the executable is named
#   <kind>_<name>[_<part>]  for the tests of plugins/<kinds>/<name>  (surrogate_tree_gp,
#                           surrogate_tree_gp_cli, inner_solver_glpk_bnb, problem_bark_suite)
#   <area>[_<part>]         for the tests in tests/<area>            (engine, sdk_conformance_kit)
# so that `ctest -R surrogate_tree_gp` selects one plugin's tests and `ctest -R '^engine'` one
# area (anchor the short area names: "abi" and "sdk" also occur inside other tests' names).
include(GoogleTest)

# arbo_add_test(<name> SOURCES <files...> [LINK <libs...>] [PROPERTIES <ctest properties...>])
# One GoogleTest executable; its tests are registered with ctest individually as
# <name>.<Suite>.<Test>, each with TIMEOUT 300 and the given PROPERTIES (pairs of name and
# value, as set_tests_properties takes them).
function(arbo_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK;PROPERTIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} GTest::gtest GTest::gtest_main)
  # Shared test helpers are included as "common/..." (tests/common).
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE
    ARBO_BUILD_DIR="${CMAKE_BINARY_DIR}"
    ARBO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ARBO_PLUGIN_DIR="${ARBO_PLUGIN_OUTPUT_DIR}"
    ARBO_TEST_PLUGIN_DIR="${CMAKE_BINARY_DIR}/lib/arbo/test_plugins")
  arbo_set_warnings(${name})
  if(ARBO_SANITIZE)
    # Test code is assertions around the libraries' work: unoptimized, it compiles in half the
    # time of -O1 (CI builds the whole suite twice on two cores); the code under test keeps -O1.
    target_compile_options(${name} PRIVATE -O0)
  endif()
  gtest_discover_tests(${name} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
                       TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT 300 ${ARG_PROPERTIES})
endfunction()

# arbo_test_needs_plugins(<test> <plugin targets...>): the test runs the real binary or loads
# plugins by path, so those of the listed plugins that this build has are built before it.
# Plugin folders are added one after another, so a plugin's tests may name a plugin whose folder
# comes later: the check runs once every folder has been added (deferred to the end of the top
# CMakeLists.txt).
function(arbo_test_needs_plugins test)
  set(_args "")
  foreach(a ${test} ${ARGN})
    string(APPEND _args " [[${a}]]")
  endforeach()
  cmake_language(EVAL CODE
    "cmake_language(DEFER DIRECTORY [[${PROJECT_SOURCE_DIR}]] CALL _arbo_add_existing_dependencies ${_args})")
endfunction()

function(_arbo_add_existing_dependencies test)
  foreach(t ${ARGN})
    if(TARGET ${t})
      add_dependencies(${test} ${t})
    endif()
  endforeach()
endfunction()
