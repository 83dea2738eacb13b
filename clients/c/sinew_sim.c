// sinew-sim: `sinew sim` as a program of its own, until the `sinew` tool's subcommands exist.
#include "sim.h"

int main(int argc, char** argv)
{
	return sinew_sim_main(argc, argv);
}
