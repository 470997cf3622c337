// spawnhost/register has no exports: importing it (or `node --import spawnhost/register`)
// sends the whole process's node:child_process launches through the spawnhost helper.
export {};
