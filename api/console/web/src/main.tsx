import { render } from 'preact';
import { App } from './App';
import { keepTablesLabelled } from './tableLabels';
import './styles.css';

const root = document.getElementById('app')!;
keepTablesLabelled(root);
render(<App />, root);
