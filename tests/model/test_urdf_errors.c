// Every malformed URDF gives its typed error with the file, line, element and what is wrong, and leaves
// nothing allocated (the sanitizer build checks leaks). Each case is a small file written out below; the
// line each error must name is the line of the element at fault in that text.
#include "support.h"

#include "sinew/model.h"

#include <stdlib.h>
#include <string.h>

typedef struct bad_case
{
	const char* name;
	const char* text;
	sn_error code;
	int line;            // expected error line (0: not tied to a line)
	const char* element; // substring of error.element ("" to skip)
	const char* message; // substring of error.message
} bad_case;

#define LINK(n)                                                                                                        \
	"<link name=\"" n "\"><inertial><mass value=\"1\"/>"                                                               \
	"<inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link>\n"
#define JOINT(n, t, p, c)                                                                                              \
	"<joint name=\"" n "\" type=\"" t "\"><parent link=\"" p "\"/><child link=\"" c "\"/>"                             \
	"<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n"

static const bad_case cases[] = {
	{ "not xml", "<robot name=\"r\">\n<link name=\"a\">\n</robot>\n", SN_ERR_INVALID_ARGUMENT, 3, "",
	  "XML: mismatched tag" },
	{ "empty", "", SN_ERR_INVALID_ARGUMENT, 1, "", "XML: no element found" },
	{ "garbage", "\x01\x02\xff\xfe", SN_ERR_INVALID_ARGUMENT, 1, "", "XML:" },
	{ "root not robot", "<?xml version=\"1.0\"?>\n<model name=\"m\"/>\n", SN_ERR_INVALID_ARGUMENT, 2, "<model>",
	  "root element must be <robot>" },
	{ "no links", "<robot name=\"r\">\n</robot>\n", SN_ERR_INVALID_ARGUMENT, 1, "<robot>", "needs a <link>" },
	{ "missing parent link",
	  "<robot name=\"r\">\n" LINK("a") "<joint name=\"j\" type=\"fixed\">\n<parent link=\"nope\"/>\n"
									   "<child link=\"a\"/></joint>\n</robot>\n",
	  SN_ERR_TOPOLOGY, 4, "<joint name=\"j\">", "parent link \"nope\" is not defined" },
	{ "missing child link",
	  "<robot name=\"r\">\n" LINK("a") "<joint name=\"j\" type=\"fixed\">\n<parent link=\"a\"/>\n"
									   "<child link=\"b\"/></joint>\n</robot>\n",
	  SN_ERR_TOPOLOGY, 5, "<joint name=\"j\">", "child link \"b\" is not defined" },
	{ "cycle",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c") JOINT("ab", "revolute", "a", "b")
		  JOINT("bc", "revolute", "b", "c") JOINT("ca", "revolute", "c", "a") "</robot>\n",
	  SN_ERR_TOPOLOGY, 7, "<joint name=\"ca\">", "form a cycle (3 links)" },
	{ "cycle beside a root",
	  "<robot name=\"r\">\n" LINK("root") LINK("a") LINK("b") JOINT("ab", "revolute", "a", "b")
		  JOINT("ba", "revolute", "b", "a") "</robot>\n",
	  SN_ERR_TOPOLOGY, 6, "<joint name=\"ba\">", "form a cycle (2 links)" },
	{ "self joint",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") JOINT("ab", "revolute", "a", "b")
		  JOINT("bb", "revolute", "b", "b") "</robot>\n",
	  SN_ERR_TOPOLOGY, 5, "", "already the child of joint \"ab\"" },
	{ "self joint alone", "<robot name=\"r\">\n" LINK("a") LINK("b") JOINT("bb", "revolute", "b", "b") "</robot>\n",
	  SN_ERR_TOPOLOGY, 4, "<joint name=\"bb\">", "parent and child are the same link \"b\"" },
	{ "two roots", "<robot name=\"r\">\n" LINK("a") LINK("b") "</robot>\n", SN_ERR_TOPOLOGY, 3, "<link name=\"b\">",
	  "two roots" },
	{ "two parents",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c") JOINT("ac", "revolute", "a", "c")
		  JOINT("bc", "revolute", "b", "c") "</robot>\n",
	  SN_ERR_TOPOLOGY, 6, "<joint name=\"bc\">", "already the child of joint \"ac\"" },
	{ "mimic of an unknown joint",
	  "<robot name=\"r\">\n" LINK("a")
		  LINK("b") "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>\n"
					"<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n<mimic "
					"joint=\"ghost\"/></joint>\n</robot>\n",
	  SN_ERR_TOPOLOGY, 6, "<joint name=\"j\">", "<mimic joint=\"ghost\">: no joint has that name" },
	{ "mimic chain",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c") LINK("d")
		  JOINT("j1", "revolute", "a",
				"b") "<joint name=\"j2\" type=\"revolute\"><parent link=\"a\"/><child link=\"c\"/>"
					 "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/><mimic joint=\"j1\"/></joint>\n"
					 "<joint name=\"j3\" type=\"revolute\"><parent link=\"a\"/><child link=\"d\"/>"
					 "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n<mimic joint=\"j2\" "
					 "multiplier=\"2\"/></joint>\n"
					 "</robot>\n",
	  SN_ERR_TOPOLOGY, 9, "<joint name=\"j3\">", "mimic chain: \"j3\" mimics \"j2\", which mimics \"j1\"" },
	{ "mimic itself",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") "<joint name=\"j\" type=\"continuous\"><parent link=\"a\"/><child "
												 "link=\"b\"/>\n<mimic joint=\"j\"/></joint>\n"
												 "</robot>\n",
	  SN_ERR_TOPOLOGY, 5, "<joint name=\"j\">", "cannot mimic itself" },
	{ "mimic of a fixed joint",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c")
		  JOINT("f", "fixed", "a", "b") "<joint name=\"j\" type=\"continuous\"><parent link=\"a\"/><child "
										"link=\"c\"/>\n<mimic joint=\"f\"/></joint>\n"
										"</robot>\n",
	  SN_ERR_WRONG_TYPE, 7, "<joint name=\"j\">", "joint \"f\" is fixed" },
	{ "negative mass",
	  "<robot name=\"r\">\n<link name=\"a\">\n<inertial>\n<mass value=\"-2\"/>\n"
	  "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>\n",
	  SN_ERR_NON_POSITIVE_MASS, 4, "<link name=\"a\"> <mass>", "mass must be >= 0 kg, got -2" },
	{ "inertia not positive definite",
	  "<robot name=\"r\">\n<link name=\"a\">\n<inertial>\n<mass value=\"2\"/>\n"
	  "<inertia ixx=\"1\" ixy=\"2\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>\n</inertial></link>\n</robot>\n",
	  SN_ERR_INERTIA_NOT_PD, 5, "<inertia>", "link \"a\": the inertia tensor is not positive semidefinite" },
	{ "negative inertia",
	  "<robot name=\"r\">\n<link name=\"a\">\n<inertial>\n<mass value=\"2\"/>\n"
	  "<inertia ixx=\"-1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>\n</inertial></link>\n</robot>\n",
	  SN_ERR_INERTIA_NOT_PD, 5, "<inertia>", "not positive semidefinite" },
	{ "unknown joint type",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") "<joint name=\"j\" type=\"hinge\">\n"
												 "<parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 4, "<joint name=\"j\">", "unknown joint type \"hinge\"" },
	{ "missing joint type",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") "<joint name=\"j\">\n"
												 "<parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 4, "<joint name=\"j\">", "attribute type is required" },
	{ "too few numbers",
	  "<robot name=\"r\">\n" LINK("a")
		  LINK("b") "<joint name=\"j\" type=\"fixed\">\n"
					"<origin xyz=\"1 2\"/><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 5, "<joint name=\"j\"> <origin>", "xyz=\"1 2\": expected 3 numbers, found 2" },
	{ "too many numbers",
	  "<robot name=\"r\">\n" LINK("a")
		  LINK("b") "<joint name=\"j\" type=\"fixed\">\n"
					"<origin rpy=\"1 2 3 4\"/><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 5, "<origin>", "expected 3 numbers, found more" },
	{ "not a number",
	  "<robot name=\"r\">\n" LINK("a")
		  LINK("b") "<joint name=\"j\" type=\"fixed\">\n"
					"<origin xyz=\"1 2 three\"/><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 5, "<origin>", "not a number" },
	{ "glued numbers",
	  "<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1kg\"/>\n</inertial></link></robot>",
	  SN_ERR_INVALID_ARGUMENT, 2, "<mass>", "value=\"1kg\": not a number" },
	{ "nan", "<robot name=\"r\">\n<link name=\"a\"><inertial>\n<mass value=\"nan\"/></inertial></link></robot>",
	  SN_ERR_NOT_FINITE, 3, "<mass>", "must be finite" },
	{ "overflow",
	  "<robot name=\"r\">\n<link name=\"a\"><visual><geometry>\n<sphere radius=\"1e999\"/></geometry>"
	  "</visual></link></robot>",
	  SN_ERR_NOT_FINITE, 3, "<sphere>", "must be finite" },
	{ "revolute without limit",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") "<joint name=\"j\" type=\"revolute\">\n"
												 "<parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 5, "<joint name=\"j\">", "a revolute joint needs a <limit" },
	{ "limit without effort",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") "<joint name=\"j\" type=\"prismatic\">\n"
												 "<parent link=\"a\"/><child link=\"b\"/>\n<limit lower=\"0\" "
												 "upper=\"1\" velocity=\"1\"/></joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 6, "<joint name=\"j\"> <limit>", "attribute effort is required" },
	{ "limits out of order",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") "<joint name=\"j\" type=\"revolute\">\n"
												 "<parent link=\"a\"/><child link=\"b\"/>\n<limit lower=\"1\" "
												 "upper=\"-1\" effort=\"1\" velocity=\"1\"/>\n</joint>\n"
												 "</robot>\n",
	  SN_ERR_LIMITS_ORDER, 6, "<limit>", "lower 1 is above upper -1" },
	{ "negative effort",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") "<joint name=\"j\" type=\"revolute\">\n"
												 "<parent link=\"a\"/><child link=\"b\"/>\n<limit lower=\"0\" "
												 "upper=\"1\" effort=\"-5\" velocity=\"1\"/></joint>\n"
												 "</robot>\n",
	  SN_ERR_NEGATIVE_VALUE, 6, "<limit>", "effort must be >= 0" },
	{ "negative damping",
	  "<robot name=\"r\">\n" LINK("a")
		  LINK("b") "<joint name=\"j\" type=\"continuous\">\n"
					"<parent link=\"a\"/><child link=\"b\"/>\n<dynamics damping=\"-0.1\"/></joint>\n</robot>\n",
	  SN_ERR_NEGATIVE_VALUE, 6, "<dynamics>", "damping must be >= 0" },
	{ "zero axis",
	  "<robot name=\"r\">\n" LINK("a")
		  LINK("b") "<joint name=\"j\" type=\"continuous\">\n"
					"<parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 0\"/>\n</joint>\n</robot>\n",
	  SN_ERR_ZERO_AXIS, 6, "<joint name=\"j\">", "axis xyz> of a continuous joint must not be zero" },
	{ "duplicate link", "<robot name=\"r\">\n" LINK("a") LINK("a") "</robot>\n", SN_ERR_INVALID_ARGUMENT, 3,
	  "<link name=\"a\">", "a second link named \"a\" (the first is on line 2)" },
	{ "duplicate joint",
	  "<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c") JOINT("j", "revolute", "a", "b")
		  JOINT("j", "revolute", "a", "c") "</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 6, "<joint name=\"j\">", "a second joint named \"j\"" },
	{ "link without name", "<robot name=\"r\">\n<link/>\n</robot>\n", SN_ERR_INVALID_ARGUMENT, 2, "<link",
	  "attribute name is required" },
	{ "empty joint name", "<robot name=\"r\">\n" LINK("a") "<joint name=\"\" type=\"fixed\"/>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 3, "<joint", "must not be empty" },
	{ "joint without parent",
	  "<robot name=\"r\">\n" LINK("a") "<joint name=\"j\" type=\"fixed\">\n<child link=\"a\"/>"
									   "</joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 4, "<joint name=\"j\">", "needs a <parent link>" },
	{ "two origins",
	  "<robot name=\"r\">\n" LINK("a")
		  LINK("b") "<joint name=\"j\" type=\"fixed\"><origin/>\n"
					"<origin xyz=\"1 0 0\"/><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 5, "<origin>", "a second <origin>" },
	{ "two inertials",
	  "<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" "
	  "ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n<inertial/></link>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 3, "<link name=\"a\"> <inertial>", "a second <inertial>" },
	{ "inertial without mass",
	  "<robot name=\"r\">\n<link name=\"a\"><inertial>\n<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" "
	  "iyy=\"1\" iyz=\"0\" izz=\"1\"/>\n</inertial></link>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 4, "<inertial>", "needs a <mass value>" },
	{ "inertia attribute missing",
	  "<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1\"/>\n"
	  "<inertia ixx=\"1\" ixy=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 3, "<inertia>", "attribute ixz is required" },
	{ "colour out of range",
	  "<robot name=\"r\">\n<material name=\"m\">\n<color rgba=\"1 0 2 1\"/></material>\n" LINK("a") "</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 3, "<material name=\"m\"> <color>", "rgba values must be in [0, 1]" },
	{ "material defined twice differently",
	  "<robot name=\"r\">\n<material name=\"m\"><color rgba=\"1 0 0 1\"/></material>\n"
	  "<material name=\"m\"><color rgba=\"0 1 0 1\"/></material>\n" LINK("a") "</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 3, "<material name=\"m\">", "defined again differently (first on line 2)" },
	{ "negative box",
	  "<robot name=\"r\">\n<link name=\"a\"><visual><geometry>\n<box size=\"1 -1 1\"/></geometry></visual>"
	  "</link>\n</robot>\n",
	  SN_ERR_NEGATIVE_VALUE, 3, "<box>", "size must be >= 0" },
	{ "mesh without file",
	  "<robot name=\"r\">\n<link name=\"a\"><visual><geometry>\n<mesh/></geometry></visual>"
	  "</link>\n</robot>\n",
	  SN_ERR_INVALID_ARGUMENT, 3, "<mesh>", "attribute filename is required" },
	{ "name too long",
	  "<robot name=\"r\">\n<link name=\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"/>\n</robot>\n",
	  SN_ERR_CAPACITY, 2, "<link", "longer than 127 bytes" },
	{ "doctype and entities",
	  "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 "
	  "\"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>\n<robot name=\"&lol2;\"/>\n",
	  SN_ERR_UNSUPPORTED, 2, "<!DOCTYPE>", "DOCTYPE is not allowed" },
	{ "undeclared entity", "<robot name=\"&boom;\">\n" LINK("a") "</robot>\n", SN_ERR_INVALID_ARGUMENT, 1, "",
	  "XML: undefined entity" },
	{ "xacro",
	  "<robot name=\"r\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\">\n<xacro:property name=\"l\" "
	  "value=\"1\"/>\n" LINK("a") "</robot>\n",
	  SN_ERR_UNSUPPORTED, 2, "<xacro:property>", "expand it with xacro first" },
	{ "too deep",
	  "<robot name=\"r\">" LINK("a") "<x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x>"
									 "<x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x><x>"
									 "<x><x><x><x><x><x><x><x><x><x>"
									 "<x><x><x><x><x><x><x><x><x><x>\n",
	  SN_ERR_CAPACITY, 2, "<x>", "nested deeper than 64" },
	{ "trailing garbage", "<robot name=\"r\">" LINK("a") "</robot>\n<robot/>\n", SN_ERR_INVALID_ARGUMENT, 3, "",
	  "XML: junk after document element" },
};

static void test_bad_files(void** state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
	{
		const bad_case* c = &cases[i];
		snm_model* model = (snm_model*)&model; // must be replaced by NULL
		snm_error error;
		sn_error err = snm_parse_urdf(c->text, strlen(c->text), "case.urdf", NULL, &model, &error);
		if (err != c->code || error.code != c->code || model != NULL)
		{
			fail_msg("case '%s': got %s (%s), expected %s", c->name, sn_error_name(err), error.text,
					 sn_error_name(c->code));
		}
		if (error.line != c->line)
		{
			fail_msg("case '%s': line %d, expected %d (%s)", c->name, error.line, c->line, error.text);
		}
		if (strstr(error.element, c->element) == NULL || strstr(error.message, c->message) == NULL)
		{
			fail_msg("case '%s': element '%s' message '%s'; expected '%s' and '%s'", c->name, error.element,
					 error.message, c->element, c->message);
		}
		// The one-line text carries the file and line.
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "case.urdf:%d:", c->line);
		if (c->line > 0 && strncmp(error.text, prefix, strlen(prefix)) != 0)
		{
			fail_msg("case '%s': text '%s' does not start with '%s'", c->name, error.text, prefix);
		}
	}
}

// Every prefix of a valid file is rejected cleanly or (for the whole file) accepted: truncation anywhere
// never crashes or leaks.
static void test_truncations(void** state)
{
	(void)state;
	const char text[] = "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n" LINK("a") LINK(
		"b") "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><origin xyz=\"0 0 1\" rpy=\"0 "
			 "0 0\"/>"
			 "<axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n</robot>\n";
	size_t n = strlen(text);
	int accepted = 0;
	for (size_t len = 0; len <= n; ++len)
	{
		snm_model* model = NULL;
		snm_error error;
		sn_error err = snm_parse_urdf(text, len, "cut.urdf", NULL, &model, &error);
		if (err == SN_ERR_OK)
		{
			++accepted;
			snm_model_destroy(model);
		}
		else
		{
			assert_null(model);
			assert_true(error.text[0] != '\0');
		}
	}
	// The whole text, and the text without its final newline.
	assert_int_equal(accepted, 2);
}

static void test_null_arguments(void** state)
{
	(void)state;
	snm_error error;
	assert_sn_error(snm_parse_urdf("<robot/>", 8, NULL, NULL, NULL, &error), SN_ERR_INVALID_ARGUMENT);
	snm_model* model = NULL;
	assert_sn_error(snm_parse_urdf(NULL, 5, NULL, NULL, &model, &error), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(snm_parse_urdf("<robot", 6, NULL, NULL, &model, NULL), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(snm_load_urdf_file(NULL, NULL, &model, &error), SN_ERR_INVALID_ARGUMENT);
	snm_model_destroy(NULL);
	assert_int_equal(snm_model_find_link(NULL, "a"), -1);
	assert_int_equal(snm_model_find_joint(NULL, "a"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_null_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
