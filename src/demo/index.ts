/** What other features use of the demo: seeding a workspace as the demo one is (the console's "create seeded"). */
export { seedDemoWorkspace } from './seedDemoWorkspace';
