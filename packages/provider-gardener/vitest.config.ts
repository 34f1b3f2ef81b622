import { defineProject } from 'vitest/config';
import { projectDefaults } from '../../vitest.shared.js';

export default defineProject(projectDefaults('provider-gardener'));
