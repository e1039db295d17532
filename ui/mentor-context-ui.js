// The chips on the page: `<mentor-sources>` and `<mentor-answer>`, defined on import. An ES
// module with no dependencies; see README.md.

import { MentorAnswer } from './src/answer.js';
import { MentorSources } from './src/sources.js';

export { MentorAnswer, MentorSources };

if (!customElements.get('mentor-sources')) customElements.define('mentor-sources', MentorSources);
if (!customElements.get('mentor-answer')) customElements.define('mentor-answer', MentorAnswer);
