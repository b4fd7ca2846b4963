# arbo_add_plugin(<target> SOURCES <files...> [LINK <libs...>] [OUTPUT_DIR <dir>] [NO_INSTALL])
# (and arbo_add_plugin_library, below, for code that several plugins share)
#
# Builds one plugin shared object exactly as a third party would: a MODULE library that links
# only the SDK (never the kernel), hidden visibility so only the entry alias is exported, and
# no undefined symbols left for load time. Stock plugins and test plugins use this same
# function, and the installed SDK package exports it for third parties.
function(arbo_add_plugin target)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIR" "SOURCES;LINK" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  _arbo_link_sdk(${target} PRIVATE ${ARG_LINK})
  if(NOT ARG_OUTPUT_DIR)
    if(ARBO_PLUGIN_OUTPUT_DIR)
      set(ARG_OUTPUT_DIR ${ARBO_PLUGIN_OUTPUT_DIR})
    else()
      set(ARG_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR})
  # Only the entry alias is exported. Header-only dependencies (Boost.System through
  # Boost.DLL's alias header) otherwise leak default-visibility symbols into the dynamic table.
  set(_arbo_vs ${CMAKE_CURRENT_BINARY_DIR}/${target}_exports.map)
  file(WRITE ${_arbo_vs} "{ global: arbo_plugin_entry_v1; local: *; };\n")
  # Under clang's sanitizers (ARBO_SANITIZE here, ARBO_SDK_SANITIZED for a plugin built
  # against a sanitized SDK package) the runtime is linked into the executable only, so a
  # module's references to it are resolved at load time.
  set(_arbo_no_undefined -Wl,--no-undefined)
  if((ARBO_SANITIZE OR ARBO_SDK_SANITIZED) AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(_arbo_no_undefined "")
  endif()
  target_link_options(${target} PRIVATE ${_arbo_no_undefined} -Wl,--exclude-libs,ALL
                      -Wl,--version-script=${_arbo_vs})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${_arbo_vs})
  if(NOT ARG_NO_INSTALL AND ARBO_PLUGIN_INSTALL_DIR)
    # Installed under <libdir>/arbo/plugins: the SDK library is two levels up.
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/../..")
    install(TARGETS ${target} LIBRARY DESTINATION ${ARBO_PLUGIN_INSTALL_DIR})
  endif()
endfunction()

# arbo_add_plugin_library(<target> SOURCES <files...> [LINK <libs...>])
#
# A static library of code that several plugins share (plugins/<kind>/common): linked against the
# SDK like a plugin, position independent and with hidden visibility, so that each plugin linking
# it gets its own copy and exports nothing of it; its folder is on the include path of whoever
# links it.
function(arbo_add_plugin_library target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  _arbo_link_sdk(${target} PUBLIC ${ARG_LINK})
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# _arbo_link_sdk(<target> <PRIVATE|PUBLIC> [libs...]): links the SDK (the in-tree target, or the
# installed package's arbo::sdk) and `libs`, and applies the project's warnings when in-tree.
function(_arbo_link_sdk target scope)
  if(TARGET arbo_sdk)
    target_link_libraries(${target} ${scope} arbo_sdk ${ARGN})
  else()
    target_link_libraries(${target} ${scope} arbo::sdk ${ARGN})
  endif()
  if(COMMAND arbo_set_warnings)
    arbo_set_warnings(${target})
  endif()
endfunction()
