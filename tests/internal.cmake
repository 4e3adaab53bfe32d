# Unit tests of internal modules (arena, allocators): they link the library's
# objects directly to reach the zc__ symbols, which the libraries hide.
# SPDX-License-Identifier: GPL-2.0-or-later
foreach(_t test_arena test_alloc test_adapt)
  add_executable(${_t} ${_t}.c ${ZC_OBJECTS})
  target_compile_options(${_t} PRIVATE -Wall -Wextra)
  target_compile_definitions(${_t} PRIVATE _POSIX_C_SOURCE=200809L)
  target_include_directories(${_t} PRIVATE ${PROJECT_SOURCE_DIR}/src/core
    ${PROJECT_SOURCE_DIR}/src/sim/model ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${_t} PRIVATE PkgConfig::LZO2 ${ZC_OPTIONAL_LIBS}
    PkgConfig::CMOCKA Threads::Threads)
  add_test(NAME ${_t} COMMAND ${_t})
  set_tests_properties(${_t} PROPERTIES TIMEOUT 300)
endforeach()

# The index, through the public API: page indexes past 2^32, many files.
add_executable(test_index test_index.c)
target_compile_options(test_index PRIVATE -Wall -Wextra)
target_link_libraries(test_index PRIVATE zt_util zcache_static
  PkgConfig::CMOCKA)
add_test(NAME test_index COMMAND test_index)
set_tests_properties(test_index PROPERTIES TIMEOUT 300)
